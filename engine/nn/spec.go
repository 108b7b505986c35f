package nn

import (
	"fmt"
	"strings"
)

// LayerKind names a layer type.
type LayerKind uint8

// The layer types. Parameterised layers (Dense, Conv2D) own a weight tensor
// and a bias vector; the others have no parameters.
const (
	KindDense LayerKind = iota + 1
	KindConv2D
	KindMaxPool2D
	KindReLU
	KindTanh
	KindFlatten
	KindAvgPool2D
	KindGlobalAvgPool
	KindDropout
)

var kindNames = map[LayerKind]string{
	KindDense: "dense", KindConv2D: "conv2d", KindMaxPool2D: "maxpool2d",
	KindReLU: "relu", KindTanh: "tanh", KindFlatten: "flatten",
	KindAvgPool2D: "avgpool2d", KindGlobalAvgPool: "globalavgpool", KindDropout: "dropout",
}

// KindByName returns the layer kind with the given String name.
func KindByName(name string) (LayerKind, bool) {
	for k, n := range kindNames {
		if n == name {
			return k, true
		}
	}
	return 0, false
}

func (k LayerKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("LayerKind(%d)", uint8(k))
}

// LayerSpec describes one layer of an architecture. Build them with Dense,
// Conv2D, MaxPool2D, ReLU, Tanh and Flatten.
type LayerSpec struct {
	Kind LayerKind
	// Units is the output width of a Dense layer or the filter count of a Conv2D.
	Units int
	// Kernel, Stride and Pad are the square window size, its step and the
	// zero padding on every side (Conv2D); MaxPool2D and AvgPool2D use
	// Kernel as both window and stride.
	Kernel, Stride, Pad int
	// Rate is a Dropout layer's drop probability, in [0, 1).
	Rate float64
}

// Dense is a fully connected layer with units outputs. It reads its input
// as one vector in CHW order, so a Flatten before it is optional.
func Dense(units int) LayerSpec { return LayerSpec{Kind: KindDense, Units: units} }

// Conv2D is a 2-D convolution (cross-correlation, as in PyTorch) with
// filters square kernels of side kernel, stride 1 and pad zeros on each side.
func Conv2D(filters, kernel, pad int) LayerSpec {
	return LayerSpec{Kind: KindConv2D, Units: filters, Kernel: kernel, Stride: 1, Pad: pad}
}

// MaxPool2D takes the maximum over non-overlapping size×size windows; rows
// and columns that do not fill a window are dropped (floor, as in PyTorch).
func MaxPool2D(size int) LayerSpec { return LayerSpec{Kind: KindMaxPool2D, Kernel: size, Stride: size} }

// AvgPool2D averages non-overlapping size×size windows; rows and columns
// that do not fill a window are dropped (floor, as in PyTorch).
func AvgPool2D(size int) LayerSpec { return LayerSpec{Kind: KindAvgPool2D, Kernel: size, Stride: size} }

// GlobalAvgPool averages each channel over its whole H×W map: C×H×W
// becomes a vector of C values.
func GlobalAvgPool() LayerSpec { return LayerSpec{Kind: KindGlobalAvgPool} }

// Dropout zeroes each value with probability rate while training and
// scales the rest by 1/(1-rate); it is the identity when evaluating.
func Dropout(rate float64) LayerSpec { return LayerSpec{Kind: KindDropout, Rate: rate} }

// ReLU is max(x, 0), elementwise.
func ReLU() LayerSpec { return LayerSpec{Kind: KindReLU} }

// Tanh is the hyperbolic tangent, elementwise.
func Tanh() LayerSpec { return LayerSpec{Kind: KindTanh} }

// Flatten turns a C×H×W activation into a vector of C*H*W values, in CHW
// order (the order PyTorch's flatten uses on NCHW tensors).
func Flatten() LayerSpec { return LayerSpec{Kind: KindFlatten} }

func (s LayerSpec) String() string {
	switch s.Kind {
	case KindDense:
		return fmt.Sprintf("dense(%d)", s.Units)
	case KindConv2D:
		return fmt.Sprintf("conv2d(%d,k%d,s%d,p%d)", s.Units, s.Kernel, s.Stride, s.Pad)
	case KindMaxPool2D:
		return fmt.Sprintf("maxpool2d(%d)", s.Kernel)
	case KindAvgPool2D:
		return fmt.Sprintf("avgpool2d(%d)", s.Kernel)
	case KindDropout:
		return fmt.Sprintf("dropout(%g)", s.Rate)
	}
	return s.Kind.String()
}

// hasParams reports whether the layer owns parameters.
func (s LayerSpec) hasParams() bool { return s.Kind == KindDense || s.Kind == KindConv2D }

// Arch is a model architecture: the input shape, the layer stack and the
// number of classes. The last layer's output is the logits, so it must be
// flat with Classes values.
type Arch struct {
	// Name identifies the architecture in serialised models.
	Name string
	// Input is the shape of one sample as a data.Dataset stores it:
	// height, width, channels, values in HWC order.
	Input [3]int
	// Classes is the number of labels (the width of the logits).
	Classes int
	Layers  []LayerSpec
}

// String returns a one-line description, e.g.
// "mlp 28x28x1 flatten dense(128) relu dense(10) ->10".
func (a Arch) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %dx%dx%d", a.Name, a.Input[0], a.Input[1], a.Input[2])
	for _, l := range a.Layers {
		b.WriteByte(' ')
		b.WriteString(l.String())
	}
	fmt.Fprintf(&b, " ->%d", a.Classes)
	return b.String()
}
