package nn

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
)

// Tensor locates one parameter tensor in the flat parameter slice.
//
// The layout of every architecture follows one rule, which another
// backend (libtorch) must reproduce byte for byte:
//
//   - tensors appear in layer order; each parameterised layer contributes
//     its weight tensor, then its bias vector;
//   - Dense weights are [out][in], row-major (PyTorch nn.Linear.weight);
//   - Conv2D weights are [outC][inC][kh][kw], row-major (PyTorch
//     nn.Conv2d.weight); biases are [out] / [outC];
//   - activations between layers are CHW per sample (NCHW per batch); the
//     model reorders input samples from the dataset's HWC to CHW first (a
//     no-op when C = 1), and Flatten keeps CHW order, so a Dense after a
//     conv stack sees input index c*H*W + h*W + w, as in PyTorch.
type Tensor struct {
	// Name is "L<i>.weight" or "L<i>.bias", i the index in Arch.Layers.
	Name string
	// Layer is the index in Arch.Layers.
	Layer int
	// Offset is the index of the tensor's first value in the flat slice.
	Offset int
	// Shape lists the dimensions, outermost first.
	Shape []int
}

// Size returns the number of values in the tensor.
func (t Tensor) Size() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// dims is the shape of one sample's activation, CHW.
type dims struct{ C, H, W int }

func (d dims) size() int { return d.C * d.H * d.W }

func (d dims) flat() bool { return d.H == 1 && d.W == 1 }

// maxLayerValues bounds the size of any activation or tensor so that the
// index arithmetic cannot overflow and a hostile spec cannot request
// absurd allocations.
const maxLayerValues = 1 << 28

// boundedProduct multiplies positive factors, reporting false as soon as
// the product exceeds maxLayerValues (so it never overflows an int).
func boundedProduct(xs ...int) (int, bool) {
	p := 1
	for _, x := range xs {
		if x < 0 || x > maxLayerValues {
			return 0, false
		}
		p *= x
		if p > maxLayerValues {
			return 0, false
		}
	}
	return p, true
}

// plan validates an architecture and returns each layer's input dims and
// the parameter layout.
func (a Arch) plan() (in []dims, out dims, tensors []Tensor, err error) {
	if a.Name == "" || len(a.Name) > maxNameLen {
		return nil, dims{}, nil, fmt.Errorf("%w: name must be 1..%d bytes, got %d", ErrArch, maxNameLen, len(a.Name))
	}
	h, w, c := a.Input[0], a.Input[1], a.Input[2]
	if _, ok := boundedProduct(h, w, c); h < 1 || w < 1 || c < 1 || !ok {
		return nil, dims{}, nil, fmt.Errorf("%w: %s: input shape %dx%dx%d", ErrArch, a.Name, h, w, c)
	}
	if a.Classes < 2 {
		return nil, dims{}, nil, fmt.Errorf("%w: %s: %d classes, need at least 2", ErrArch, a.Name, a.Classes)
	}
	if len(a.Layers) == 0 {
		return nil, dims{}, nil, fmt.Errorf("%w: %s: no layers", ErrArch, a.Name)
	}
	cur := dims{C: c, H: h, W: w}
	offset := 0
	for i, l := range a.Layers {
		in = append(in, cur)
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%w: %s layer %d %v: %s", ErrArch, a.Name, i, l, fmt.Sprintf(format, args...))
		}
		add := func(kind string, shape ...int) {
			t := Tensor{Name: fmt.Sprintf("L%d.%s", i, kind), Layer: i, Offset: offset, Shape: shape}
			tensors = append(tensors, t)
			offset += t.Size()
		}
		switch l.Kind {
		case KindDense:
			if _, ok := boundedProduct(l.Units, cur.size()); l.Units < 1 || !ok {
				return nil, dims{}, nil, bad("%d units", l.Units)
			}
			add("weight", l.Units, cur.size())
			add("bias", l.Units)
			cur = dims{C: l.Units, H: 1, W: 1}
		case KindConv2D:
			k, s, p := l.Kernel, l.Stride, l.Pad
			if l.Units < 1 || k < 1 || s < 1 || p < 0 || p >= k || l.Units > maxLayerValues || k > maxLayerValues {
				return nil, dims{}, nil, bad("filters %d kernel %d stride %d pad %d", l.Units, k, s, p)
			}
			oh, ow := (cur.H+2*p-k)/s+1, (cur.W+2*p-k)/s+1
			if cur.H+2*p < k || cur.W+2*p < k {
				return nil, dims{}, nil, bad("kernel %d larger than padded input %dx%d", k, cur.H+2*p, cur.W+2*p)
			}
			_, ok1 := boundedProduct(l.Units, cur.C, k, k)
			_, ok2 := boundedProduct(l.Units, oh, ow)
			_, ok3 := boundedProduct(cur.C, k, k, oh, ow)
			if !ok1 || !ok2 || !ok3 {
				return nil, dims{}, nil, bad("more than %d values in a tensor or activation", maxLayerValues)
			}
			add("weight", l.Units, cur.C, k, k)
			add("bias", l.Units)
			cur = dims{C: l.Units, H: oh, W: ow}
		case KindMaxPool2D:
			if l.Kernel < 1 || l.Stride != l.Kernel || cur.H < l.Kernel || cur.W < l.Kernel {
				return nil, dims{}, nil, bad("window %d stride %d on %dx%d", l.Kernel, l.Stride, cur.H, cur.W)
			}
			cur = dims{C: cur.C, H: cur.H / l.Kernel, W: cur.W / l.Kernel}
		case KindAvgPool2D:
			if l.Kernel < 1 || l.Stride != l.Kernel || cur.H < l.Kernel || cur.W < l.Kernel {
				return nil, dims{}, nil, bad("window %d stride %d on %dx%d", l.Kernel, l.Stride, cur.H, cur.W)
			}
			cur = dims{C: cur.C, H: cur.H / l.Kernel, W: cur.W / l.Kernel}
		case KindGlobalAvgPool:
			cur = dims{C: cur.C, H: 1, W: 1}
		case KindDropout:
			// !(>= 0) also refuses NaN.
			if !(l.Rate >= 0) || l.Rate >= 1 {
				return nil, dims{}, nil, bad("rate %v, want 0 <= rate < 1", l.Rate)
			}
		case KindReLU, KindTanh:
		case KindFlatten:
			cur = dims{C: cur.size(), H: 1, W: 1}
		default:
			return nil, dims{}, nil, bad("unknown layer kind")
		}
		if offset > maxParams {
			return nil, dims{}, nil, bad("more than %d parameters", maxParams)
		}
	}
	if len(tensors) == 0 {
		return nil, dims{}, nil, fmt.Errorf("%w: %s: no Dense or Conv2D layer", ErrArch, a.Name)
	}
	if !cur.flat() || cur.C != a.Classes {
		return nil, dims{}, nil, fmt.Errorf("%w: %s: output is %dx%dx%d (CHW), want %d logits", ErrArch, a.Name, cur.C, cur.H, cur.W, a.Classes)
	}
	return in, cur, tensors, nil
}

// maxParams bounds the parameter count of one model (1 GiB of float32).
const maxParams = 1 << 28

// Layout returns the parameter tensors of the architecture in flat order.
func (a Arch) Layout() ([]Tensor, error) {
	_, _, t, err := a.plan()
	return t, err
}

// NumParams returns the total number of parameters.
func (a Arch) NumParams() (int, error) {
	t, err := a.Layout()
	if err != nil {
		return 0, err
	}
	return paramCount(t), nil
}

func paramCount(t []Tensor) int {
	if len(t) == 0 {
		return 0
	}
	last := t[len(t)-1]
	return last.Offset + last.Size()
}

// ShapeChecksum identifies the parameter layout: the first 8 bytes
// (big-endian) of the SHA-256 of a canonical text listing the input shape,
// the class count and every tensor's name and shape. Two architectures
// with the same checksum can exchange parameters; together with the name
// it is what a serialised model is checked against.
func (a Arch) ShapeChecksum() (uint64, error) {
	t, err := a.Layout()
	if err != nil {
		return 0, err
	}
	return layoutChecksum(a, t), nil
}

func layoutChecksum(a Arch, tensors []Tensor) uint64 {
	var b strings.Builder
	fmt.Fprintf(&b, "peerlearn-nn-layout-v1\ninput %dx%dx%d HWC\nclasses %d\n", a.Input[0], a.Input[1], a.Input[2], a.Classes)
	for _, t := range tensors {
		fmt.Fprintf(&b, "%s %v\n", t.Name, t.Shape)
	}
	sum := sha256.Sum256([]byte(b.String()))
	return binary.BigEndian.Uint64(sum[:8])
}
