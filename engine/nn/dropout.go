package nn

import (
	"fmt"
	"math/rand/v2"
)

// dropout zeroes each value with probability rate during training and
// scales the survivors by 1/(1-rate) ("inverted" dropout, as in PyTorch),
// so that evaluation is the identity. It is active only for the forward
// and backward of LossGrad (the model sets active around them); Evaluate,
// Forward and HessianDiag see the identity.
//
// Masks are drawn from the model's dropout source (Model.SetDropoutSource,
// or a generator seeded from Init's), one Float64 per value in batch order,
// so the same source gives the same masks on every platform.
type dropout struct {
	size   int
	rate   float64
	scale  float32
	active bool
	rng    **rand.Rand // the model's source, shared by its dropout layers
	mask   []float32   // 0 or scale per value of the last active forward
	y, dx  []float32
}

func newDropout(size int, rate float64, rng **rand.Rand) *dropout {
	return &dropout{size: size, rate: rate, scale: float32(1 / (1 - rate)), rng: rng}
}

func (d *dropout) reserve(n int) {
	d.mask = grow(d.mask, n*d.size)
	d.y = grow(d.y, n*d.size)
	d.dx = grow(d.dx, n*d.size)
}

func (d *dropout) forward(x []float32, n int) []float32 {
	if !d.active {
		return x
	}
	rng := *d.rng
	mask, y := d.mask[:n*d.size], d.y[:n*d.size]
	for i, v := range x[:n*d.size] {
		m := d.scale
		if rng.Float64() < d.rate {
			m = 0
		}
		mask[i] = m
		y[i] = v * m
	}
	return y
}

func (d *dropout) backward(dy []float32, n int, _ bool) []float32 {
	if !d.active {
		return dy
	}
	dx := d.dx[:n*d.size]
	for i, m := range d.mask[:n*d.size] {
		dx[i] = dy[i] * m
	}
	return dx
}

// SetDropoutSource sets the generator the model's Dropout layers draw
// their training masks from. Init sets one seeded from its own generator
// when the model has Dropout layers; set another to control the masks
// apart from the weights. nil leaves a model with Dropout unable to train
// (LossGrad returns ErrConfig) and changes nothing for one without.
func (m *Model) SetDropoutSource(rng *rand.Rand) { m.dropRNG = rng }

// DropoutSource returns the generator the Dropout layers draw from (nil
// before Init or SetDropoutSource). A backend that trains the model's
// architecture elsewhere (the libtorch companion) takes it to draw the
// masks this model would.
func (m *Model) DropoutSource() *rand.Rand { return m.dropRNG }

// setTraining turns the Dropout layers on or off; it fails when they need
// a source and have none.
func (m *Model) setTraining(on bool) error {
	if len(m.drops) == 0 {
		return nil
	}
	if on && m.dropRNG == nil {
		return fmt.Errorf("%w: %s has Dropout layers and no dropout source (Init or SetDropoutSource)", ErrConfig, m.arch.Name)
	}
	for _, d := range m.drops {
		d.active = on
	}
	return nil
}
