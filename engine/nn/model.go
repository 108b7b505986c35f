package nn

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/peerlearn/peerlearn/internal/f32"
)

// Model is a feed-forward network whose parameters live in one flat
// []float32 (and gradients in another of the same layout, see Tensor):
// layers hold sub-slices of them, so copying, averaging, sending or
// fingerprinting a model is one slice operation.
//
// A Model is not safe for concurrent use. Batch buffers are kept between
// calls and grow to the largest batch seen; after that a training step
// allocates nothing (f32's kernels aside). They scale with the batch (see
// DefaultEvalBatch), so a simulator running many nodes of one
// architecture one at a time can share a Model as a workspace, keeping each
// node's parameters in its own slice (SetParams before, copy Params after)
// and each node's Optimizer in its own Trainer over that Model.
type Model struct {
	arch    Arch
	layout  []Tensor
	sum     uint64
	params  []float32
	grads   []float32
	layers  []layer
	plays   []paramLayer // the parameterised layers, in order
	inSize  int
	classes int
	batch   int       // batch capacity of the buffers
	dlogits []float32 // dL/dlogits
	drops   []*dropout
	dropRNG *rand.Rand // the Dropout layers' mask source (see SetDropoutSource)
}

// NewModel builds a model for the architecture with all parameters zero:
// call Init (or SetParams) before training.
func NewModel(a Arch) (*Model, error) {
	ins, _, tensors, err := a.plan()
	if err != nil {
		return nil, err
	}
	a.Layers = slices.Clone(a.Layers)
	m := &Model{
		arch:    a,
		layout:  tensors,
		sum:     layoutChecksum(a, tensors),
		inSize:  a.Input[0] * a.Input[1] * a.Input[2],
		classes: a.Classes,
	}
	n := paramCount(tensors)
	m.params = make([]float32, n)
	m.grads = make([]float32, n)
	if ins[0].C > 1 {
		m.layers = append(m.layers, &hwcToCHW{in: ins[0]})
	}
	for i, l := range a.Layers {
		in := ins[i]
		var ly layer
		switch l.Kind {
		case KindDense:
			ly = newDense(in.size(), l.Units)
		case KindConv2D:
			ly = newConv2D(in, l.Units, l.Kernel, l.Stride, l.Pad)
		case KindMaxPool2D:
			ly = newMaxPool2D(in, l.Kernel)
		case KindReLU:
			ly = &relu{size: in.size()}
		case KindTanh:
			ly = &tanh{size: in.size()}
		case KindFlatten:
			ly = flatten{}
		case KindAvgPool2D:
			ly = newAvgPool2D(in, l.Kernel)
		case KindGlobalAvgPool:
			ly = &globalAvgPool{in: in}
		case KindDropout:
			d := newDropout(in.size(), l.Rate, &m.dropRNG)
			m.drops = append(m.drops, d)
			ly = d
		}
		if pl, ok := ly.(paramLayer); ok {
			// plan lists each parameterised layer's weight then bias.
			w, b := tensors[2*len(m.plays)], tensors[2*len(m.plays)+1]
			end := b.Offset + b.Size()
			pl.bind(m.params[w.Offset:end:end], m.grads[w.Offset:end:end])
			// Nothing upstream of the first parameterised layer needs a
			// gradient, so it skips computing dL/dx and backward stops there.
			if len(m.plays) == 0 {
				pl.skipInputGrad()
			}
			m.plays = append(m.plays, pl)
		}
		m.layers = append(m.layers, ly)
	}
	return m, nil
}

// Arch returns the model's architecture.
func (m *Model) Arch() Arch {
	a := m.arch
	a.Layers = slices.Clone(a.Layers)
	return a
}

// Layout returns the parameter tensors in flat order.
func (m *Model) Layout() []Tensor {
	t := make([]Tensor, len(m.layout))
	for i, x := range m.layout {
		x.Shape = slices.Clone(x.Shape)
		t[i] = x
	}
	return t
}

// ShapeChecksum returns Arch.ShapeChecksum of the model's architecture.
func (m *Model) ShapeChecksum() uint64 { return m.sum }

// NumParams returns the number of parameters.
func (m *Model) NumParams() int { return len(m.params) }

// Params returns the live flat parameter slice (not a copy): writes to it
// change the model. Its layout is documented on Tensor.
func (m *Model) Params() []float32 { return m.params }

// Grads returns the live flat gradient slice, same layout as Params,
// holding the gradient of the last LossGrad.
func (m *Model) Grads() []float32 { return m.grads }

// SetParams copies src into the parameters after checking its length and
// that every value is finite; on error the model is unchanged.
func (m *Model) SetParams(src []float32) error {
	if len(src) != len(m.params) {
		return fmt.Errorf("%w: %d parameters for %s, which has %d", ErrShape, len(src), m.arch.Name, len(m.params))
	}
	if i := f32.FirstNonFinite(src); i >= 0 {
		return fmt.Errorf("%w: parameter %d is %v", ErrNonFinite, i, src[i])
	}
	copy(m.params, src)
	return nil
}

// reserve grows every buffer to hold n samples.
func (m *Model) reserve(n int) {
	if n <= m.batch {
		return
	}
	for _, l := range m.layers {
		l.reserve(n)
	}
	m.dlogits = grow(m.dlogits, n*m.classes)
	m.batch = n
}

// checkBatch validates a batch: x holds n samples, every feature finite,
// and (when y is not nil) n labels in range.
func (m *Model) checkBatch(x []float32, n int, y []int32) error {
	if n < 1 {
		return fmt.Errorf("%w: empty batch", ErrShape)
	}
	if len(x) != n*m.inSize {
		return fmt.Errorf("%w: %d input values for %d samples of %d features", ErrShape, len(x), n, m.inSize)
	}
	if i := f32.FirstNonFinite(x); i >= 0 {
		return fmt.Errorf("%w: input sample %d feature %d is %v", ErrNonFinite, i/m.inSize, i%m.inSize, x[i])
	}
	for i, l := range y {
		if l < 0 || int(l) >= m.classes {
			return fmt.Errorf("%w: sample %d has label %d, want 0..%d", ErrLabel, i, l, m.classes-1)
		}
	}
	return nil
}

// forward runs a checked batch and returns the logits [n][classes].
func (m *Model) forward(x []float32, n int) []float32 {
	m.reserve(n)
	for _, l := range m.layers {
		x = l.forward(x, n)
	}
	return x
}

// backward propagates m.dlogits and accumulates parameter gradients.
func (m *Model) backward(n int, sq bool) {
	d := m.dlogits[:n*m.classes]
	for i := len(m.layers) - 1; i >= 0 && d != nil; i-- {
		d = m.layers[i].backward(d, n, sq)
	}
}

// Forward computes the logits of n samples x ([n][features], HWC per
// sample). The result is a view of an internal buffer, valid until the
// next call on the model.
func (m *Model) Forward(x []float32, n int) ([]float32, error) {
	if err := m.checkBatch(x, n, nil); err != nil {
		return nil, err
	}
	return m.forward(x, n), nil
}

// LossGrad computes the mean softmax cross-entropy of the batch (x, y)
// and leaves its gradient in Grads. On error Grads is unspecified and the
// parameters are untouched.
func (m *Model) LossGrad(x []float32, y []int32) (float32, error) {
	n := len(y)
	if err := m.checkBatch(x, n, y); err != nil {
		return 0, err
	}
	if err := m.setTraining(true); err != nil {
		return 0, err
	}
	defer m.setTraining(false)
	logits := m.forward(x, n)
	total, err := softmaxCE(logits, y, m.classes, m.dlogits, 1/float32(n))
	if err != nil {
		return 0, err
	}
	clear(m.grads)
	m.backward(n, false)
	if i := f32.FirstNonFinite(m.grads); i >= 0 {
		return 0, fmt.Errorf("%w: gradient %d is %v", ErrNonFinite, i, m.grads[i])
	}
	return float32(total / float64(n)), nil
}
