package nn

import (
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/internal/f32"
)

// OptState is an optimiser's state between steps, to carry a peer's
// training across a restart (a browser tab's reload): Kind names the
// optimiser ("sgd", "adam"), Step counts Adam's steps (bias correction),
// Buffers are the per-parameter buffers, each as long as the model's
// parameters (SGD: the momentum, absent before the first step or without
// momentum; Adam: the first and second moments, absent before the first
// step). Each buffer has the model's layout, so it serialises in the
// model format (AppendEncoded) with the model's name and shape checksum.
type OptState struct {
	Kind    string
	Step    int
	Buffers [][]float32
}

// maxAdamStep bounds a restored Adam step count (β1ᵗ is recomputed by t
// multiplications): far more steps than any peer takes.
const maxAdamStep = 1 << 24

// StateOf returns a copy of o's state, for an SGD or Adam optimiser.
func StateOf(o Optimizer) (OptState, error) {
	switch o := o.(type) {
	case *SGD:
		s := OptState{Kind: "sgd"}
		if o.vel != nil {
			s.Buffers = [][]float32{slices.Clone(o.vel)}
		}
		return s, nil
	case *Adam:
		s := OptState{Kind: "adam", Step: o.t}
		if o.m != nil {
			s.Buffers = [][]float32{slices.Clone(o.m), slices.Clone(o.v)}
		}
		return s, nil
	}
	return OptState{}, fmt.Errorf("%w: optimiser %T has no exportable state", ErrConfig, o)
}

// SetState restores s, taken from an optimiser of the same kind, into o
// for a model of n parameters. Buffers of another length, non-finite
// values, a step count out of range or another kind are errors wrapping
// ErrMismatch or ErrConfig; on any error o is unchanged.
func SetState(o Optimizer, s OptState, n int) error {
	for i, b := range s.Buffers {
		if len(b) != n {
			return fmt.Errorf("%w: optimiser buffer %d has %d values, the model %d parameters", ErrMismatch, i, len(b), n)
		}
		if j := f32.FirstNonFinite(b); j >= 0 {
			return fmt.Errorf("%w: optimiser buffer %d value %d is %v", ErrNonFinite, i, j, b[j])
		}
	}
	switch o := o.(type) {
	case *SGD:
		switch {
		case s.Kind != "sgd":
			return fmt.Errorf("%w: %s optimiser state for an sgd optimiser", ErrMismatch, s.Kind)
		case len(s.Buffers) > 1, len(s.Buffers) == 1 && o.Momentum == 0:
			return fmt.Errorf("%w: %d sgd buffers for momentum %v", ErrMismatch, len(s.Buffers), o.Momentum)
		case len(s.Buffers) == 0:
			o.vel = nil
		default:
			o.vel = slices.Clone(s.Buffers[0])
		}
		return nil
	case *Adam:
		switch {
		case s.Kind != "adam":
			return fmt.Errorf("%w: %s optimiser state for an adam optimiser", ErrMismatch, s.Kind)
		case s.Step < 0 || s.Step > maxAdamStep:
			return fmt.Errorf("%w: adam step %d", ErrConfig, s.Step)
		case len(s.Buffers) == 0 && s.Step == 0:
			o.Reset()
			return nil
		case len(s.Buffers) != 2 || s.Step == 0:
			return fmt.Errorf("%w: %d adam buffers at step %d, want 2 after a step", ErrMismatch, len(s.Buffers), s.Step)
		}
		// β1ᵗ and β2ᵗ as Step computes them: repeated multiplication.
		b1t, b2t := 1.0, 1.0
		for range s.Step {
			b1t *= float64(o.Beta1)
			b2t *= float64(o.Beta2)
		}
		o.m, o.v, o.t, o.b1t, o.b2t = slices.Clone(s.Buffers[0]), slices.Clone(s.Buffers[1]), s.Step, b1t, b2t
		return nil
	}
	return fmt.Errorf("%w: optimiser %T has no importable state", ErrConfig, o)
}
