package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/peerlearn/peerlearn/internal/detmath"
)

// InitScheme chooses the distribution of initial weights. Biases start at 0.
type InitScheme uint8

const (
	// HeNormal draws N(0, σ²) with σ = gain·sqrt(2/fanIn) (Kaiming normal).
	HeNormal InitScheme = iota + 1
	// HeUniform draws U(-a, a) with a = gain·sqrt(6/fanIn) (same variance).
	HeUniform
	// GlorotNormal draws N(0, σ²) with σ = gain·sqrt(2/(fanIn+fanOut)).
	GlorotNormal
	// GlorotUniform draws U(-a, a) with a = gain·sqrt(6/(fanIn+fanOut)).
	GlorotUniform
)

// Gain returns the factor applied to the weights of a parameterised layer:
// the argument counts Dense and Conv2D layers only, from 0 in layer order.
// The uncoordinated-initialisation paper multiplies He weights by
// 1/||v_steady|| (√n on regular graphs); a nil Gain means 1.
type Gain func(paramLayer int) float32

// Gains returns a Gain reading g[i] for parameterised layer i and 1 past
// the end of g.
func Gains(g ...float32) Gain {
	return func(i int) float32 {
		if i < len(g) {
			return g[i]
		}
		return 1
	}
}

// Init draws fresh weights from rng and sets biases to 0. Weights are
// drawn layer by layer in flat layout order, so the same seed, scheme and
// gains give the same parameters on every platform (normals come from a
// polar method on rng's uniforms, see detmath.Normal). A model with
// Dropout layers then draws the seed of its dropout source from rng.
func (m *Model) Init(rng *rand.Rand, scheme InitScheme, gain Gain) error {
	if rng == nil {
		return fmt.Errorf("%w: nil random source", ErrConfig)
	}
	if scheme < HeNormal || scheme > GlorotUniform {
		return fmt.Errorf("%w: unknown init scheme %d", ErrConfig, scheme)
	}
	gains := make([]float64, len(m.plays))
	for i := range gains {
		gains[i] = 1
		if gain != nil {
			g := float64(gain(i))
			if math.IsNaN(g) || math.IsInf(g, 0) || g < 0 {
				return fmt.Errorf("%w: gain %v for layer %d", ErrConfig, g, i)
			}
			gains[i] = g
		}
	}
	clear(m.params)
	for i, l := range m.plays {
		fanIn, fanOut := l.fans()
		var scale float64
		switch scheme {
		case HeNormal, HeUniform:
			scale = 2 / float64(fanIn)
		case GlorotNormal, GlorotUniform:
			scale = 2 / float64(fanIn+fanOut)
		}
		w := l.weights()
		if scheme == HeNormal || scheme == GlorotNormal {
			std := gains[i] * math.Sqrt(scale)
			for j := range w {
				w[j] = float32(std * detmath.Normal(rng.Float64))
			}
		} else {
			bound := gains[i] * math.Sqrt(3*scale)
			for j := range w {
				w[j] = float32(bound * (2*rng.Float64() - 1))
			}
		}
	}
	// Only a model with Dropout draws its mask seed, after the weights, so
	// the stream (and every result) of a model without is unchanged.
	if len(m.drops) > 0 {
		m.dropRNG = rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))
	}
	return nil
}
