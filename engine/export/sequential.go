package export

import (
	"fmt"
	"strings"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/f32"
)

// Module is one module of the torch.nn.Sequential equivalent to an
// architecture. Type is the torch class: Linear (In, Out), Conv2d (In,
// Out, Kernel, Stride, Padding), MaxPool2d and AvgPool2d (Kernel, Stride),
// AdaptiveAvgPool2d (output size 1: the engine's GlobalAvgPool, always
// followed by a Flatten), Dropout (P), ReLU, Tanh, Flatten, or Unflatten
// (Shape: the C, H, W the flat features become).
type Module struct {
	Type    string  `json:"type"`
	In      int     `json:"in,omitempty"`
	Out     int     `json:"out,omitempty"`
	Kernel  int     `json:"kernel,omitempty"`
	Stride  int     `json:"stride,omitempty"`
	Padding int     `json:"padding,omitempty"`
	P       float64 `json:"p,omitempty"`
	Shape   []int   `json:"shape,omitempty"`
	// Layer is the index in Arch.Layers the module computes, -1 for a
	// Flatten or Unflatten added to fix the tensor's rank.
	Layer int `json:"layer"`
}

// String is the module as torch prints it, e.g. "Linear(in_features=784, out_features=128)".
func (m Module) String() string {
	switch m.Type {
	case "Linear":
		return fmt.Sprintf("Linear(in_features=%d, out_features=%d)", m.In, m.Out)
	case "Conv2d":
		return fmt.Sprintf("Conv2d(%d, %d, kernel_size=%d, stride=%d, padding=%d)", m.In, m.Out, m.Kernel, m.Stride, m.Padding)
	case "MaxPool2d":
		return fmt.Sprintf("MaxPool2d(kernel_size=%d, stride=%d)", m.Kernel, m.Stride)
	case "AvgPool2d":
		return fmt.Sprintf("AvgPool2d(kernel_size=%d, stride=%d)", m.Kernel, m.Stride)
	case "AdaptiveAvgPool2d":
		return "AdaptiveAvgPool2d(output_size=1)"
	case "Dropout":
		return fmt.Sprintf("Dropout(p=%g)", m.P)
	case "Unflatten":
		return fmt.Sprintf("Unflatten(dim=1, unflattened_size=%v)", m.Shape)
	}
	return m.Type + "()"
}

// Param is one parameter tensor under its export name.
type Param struct {
	// Name is the state_dict key of the equivalent Sequential, "<i>.weight"
	// or "<i>.bias", i the module's index; ONNX initializers use it too.
	Name  string
	Shape []int
	// Offset is the index of the first value in the flat parameters.
	Offset int
}

func (p Param) size() int {
	n := 1
	for _, d := range p.Shape {
		n *= d
	}
	return n
}

// chw is the shape of one sample's activation, as the engine tracks it.
type chw struct{ C, H, W int }

// plan is an architecture translated for export: the Sequential, the
// parameters by export name, and the input shape (CHW).
type plan struct {
	arch    nn.Arch
	modules []Module
	params  []Param
	in      chw
	count   int
}

// newPlan validates a and maps it to a torch.nn.Sequential. The engine
// sees every activation as C×H×W and lets a Dense read a C×H×W input, or
// a Conv2D a flat one (as C×1×1); torch needs the rank right, so a
// Flatten goes before a Linear whose input is 4-D, an Unflatten before a
// Conv2d or MaxPool2d whose input is 2-D, and a Flatten at the end when
// the logits are still 4-D (N, classes, 1, 1).
func newPlan(a nn.Arch) (*plan, error) {
	tensors, err := a.Layout()
	if err != nil {
		return nil, err
	}
	p := &plan{arch: a, in: chw{C: a.Input[2], H: a.Input[0], W: a.Input[1]}}
	byLayer := make(map[int][]nn.Tensor)
	for _, t := range tensors {
		byLayer[t.Layer] = append(byLayer[t.Layer], t)
	}
	cur, flat := p.in, false // flat: the torch tensor is 2-D (N, features)
	add := func(m Module) int { p.modules = append(p.modules, m); return len(p.modules) - 1 }
	for i, l := range a.Layers {
		switch l.Kind {
		case nn.KindDense:
			if !flat {
				add(Module{Type: "Flatten", Layer: -1})
			}
			in := cur.C * cur.H * cur.W
			p.bind(add(Module{Type: "Linear", In: in, Out: l.Units, Layer: i}), byLayer[i])
			cur, flat = chw{l.Units, 1, 1}, true
		case nn.KindConv2D:
			if flat {
				add(Module{Type: "Unflatten", Shape: []int{cur.C, cur.H, cur.W}, Layer: -1})
			}
			p.bind(add(Module{Type: "Conv2d", In: cur.C, Out: l.Units, Kernel: l.Kernel, Stride: l.Stride, Padding: l.Pad, Layer: i}), byLayer[i])
			cur = chw{l.Units, (cur.H+2*l.Pad-l.Kernel)/l.Stride + 1, (cur.W+2*l.Pad-l.Kernel)/l.Stride + 1}
			flat = false
		case nn.KindMaxPool2D:
			if flat {
				add(Module{Type: "Unflatten", Shape: []int{cur.C, cur.H, cur.W}, Layer: -1})
			}
			add(Module{Type: "MaxPool2d", Kernel: l.Kernel, Stride: l.Stride, Layer: i})
			cur = chw{cur.C, cur.H / l.Kernel, cur.W / l.Kernel}
			flat = false
		case nn.KindAvgPool2D:
			if flat {
				add(Module{Type: "Unflatten", Shape: []int{cur.C, cur.H, cur.W}, Layer: -1})
			}
			add(Module{Type: "AvgPool2d", Kernel: l.Kernel, Stride: l.Stride, Layer: i})
			cur = chw{cur.C, cur.H / l.Kernel, cur.W / l.Kernel}
			flat = false
		case nn.KindGlobalAvgPool:
			if flat {
				add(Module{Type: "Unflatten", Shape: []int{cur.C, cur.H, cur.W}, Layer: -1})
			}
			// The engine's result is a C-vector: (N, C, 1, 1) flattened.
			add(Module{Type: "AdaptiveAvgPool2d", Layer: i})
			add(Module{Type: "Flatten", Layer: -1})
			cur, flat = chw{cur.C, 1, 1}, true
		case nn.KindDropout:
			add(Module{Type: "Dropout", P: l.Rate, Layer: i})
		case nn.KindReLU:
			add(Module{Type: "ReLU", Layer: i})
		case nn.KindTanh:
			add(Module{Type: "Tanh", Layer: i})
		case nn.KindFlatten:
			add(Module{Type: "Flatten", Layer: i})
			cur, flat = chw{cur.C * cur.H * cur.W, 1, 1}, true
		default:
			return nil, fmt.Errorf("%w: layer %d: %v cannot be exported", nn.ErrArch, i, l)
		}
	}
	if !flat {
		add(Module{Type: "Flatten", Layer: -1})
	}
	if len(p.params) != len(tensors) {
		return nil, fmt.Errorf("%w: %s: %d tensors exported of %d", nn.ErrArch, a.Name, len(p.params), len(tensors))
	}
	last := p.params[len(p.params)-1]
	p.count = last.Offset + last.size()
	return p, nil
}

// bind names the layer's tensors (weight then bias) after module index j.
func (p *plan) bind(j int, ts []nn.Tensor) {
	for _, t := range ts {
		_, kind, _ := strings.Cut(t.Name, ".")
		p.params = append(p.params, Param{Name: fmt.Sprintf("%d.%s", j, kind), Shape: t.Shape, Offset: t.Offset})
	}
}

// check validates the parameter count and values against the plan.
func (p *plan) check(params []float32) error {
	if len(params) != p.count {
		return fmt.Errorf("%w: %d parameters for %s, which has %d", nn.ErrShape, len(params), p.arch.Name, p.count)
	}
	if i := f32.FirstNonFinite(params); i >= 0 {
		return fmt.Errorf("%w: parameter %d is %v", nn.ErrNonFinite, i, params[i])
	}
	return nil
}

// Sequential returns the torch.nn.Sequential equivalent to a, module by
// module, and its parameters under their state_dict names in flat order.
func Sequential(a nn.Arch) ([]Module, []Param, error) {
	p, err := newPlan(a)
	if err != nil {
		return nil, nil, err
	}
	return p.modules, p.params, nil
}

// NCHW reorders n samples from the engine's HWC (x as a data.Dataset holds
// them) to the NCHW that the exported models take.
func NCHW(a nn.Arch, x []float32) ([]float32, error) {
	h, w, c := a.Input[0], a.Input[1], a.Input[2]
	s := h * w * c
	if s < 1 || len(x)%s != 0 {
		return nil, fmt.Errorf("%w: %d values are not whole %dx%dx%d samples", nn.ErrShape, len(x), h, w, c)
	}
	out := make([]float32, len(x))
	for base := 0; base < len(x); base += s {
		for y := range h {
			for xx := range w {
				for ch := range c {
					out[base+ch*h*w+y*w+xx] = x[base+(y*w+xx)*c+ch]
				}
			}
		}
	}
	return out, nil
}
