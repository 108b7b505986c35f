//go:build torch

package gpu

import (
	"fmt"
	"math/rand/v2"

	"github.com/peerlearn/peerlearn/engine/nn"
)

// dropout draws the training masks of a model's Dropout layers on the Go
// side, exactly as nn's Dropout draws them (one Float64 per value, layer
// by layer, in batch order; 0 below the rate, else 1/(1-rate)), so that a
// Backend and an nn.Model given generators in the same state train alike.
// libtorch only multiplies by them.
type dropout struct {
	layers []dropLayer
	rng    *rand.Rand
	buf    []float32
}

// dropoutStream is the PCG stream of the generator New seeds from
// Config.DropoutSeed.
const dropoutStream = 0xd809

type dropLayer struct {
	size  int // values per sample
	rate  float64
	scale float32
}

// newDropout finds the Dropout layers of a (which plan has validated).
func newDropout(a nn.Arch) (dropout, error) {
	var d dropout
	c, h, w := a.Input[2], a.Input[0], a.Input[1]
	for _, l := range a.Layers {
		switch l.Kind {
		case nn.KindDense:
			c, h, w = l.Units, 1, 1
		case nn.KindConv2D:
			h, w = (h+2*l.Pad-l.Kernel)/l.Stride+1, (w+2*l.Pad-l.Kernel)/l.Stride+1
			c = l.Units
		case nn.KindMaxPool2D, nn.KindAvgPool2D:
			h, w = h/l.Kernel, w/l.Kernel
		case nn.KindGlobalAvgPool:
			h, w = 1, 1
		case nn.KindFlatten:
			c, h, w = c*h*w, 1, 1
		case nn.KindDropout:
			if !(l.Rate >= 0) || l.Rate >= 1 {
				return dropout{}, fmt.Errorf("%w: dropout rate %v", nn.ErrArch, l.Rate)
			}
			d.layers = append(d.layers, dropLayer{size: c * h * w, rate: l.Rate, scale: float32(1 / (1 - l.Rate))})
		}
	}
	return d, nil
}

// masks returns the masks of a batch of n samples (nil without Dropout).
func (d *dropout) masks(n int) ([]float32, error) {
	if len(d.layers) == 0 {
		return nil, nil
	}
	if d.rng == nil {
		return nil, fmt.Errorf("%w: gpu: the model has Dropout layers and no dropout source (SetDropoutSource)", nn.ErrConfig)
	}
	total := 0
	for _, l := range d.layers {
		total += n * l.size
	}
	if cap(d.buf) < total {
		d.buf = make([]float32, total)
	}
	out := d.buf[:total]
	i := 0
	for _, l := range d.layers {
		for range n * l.size {
			m := l.scale
			if d.rng.Float64() < l.rate {
				m = 0
			}
			out[i] = m
			i++
		}
	}
	return out, nil
}
