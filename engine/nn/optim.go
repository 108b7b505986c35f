package nn

import (
	"fmt"
	"math"
)

// Optimizer updates a flat parameter slice from the matching gradient
// slice. Optimisers keep per-parameter state (momentum, moments), sized
// on the first Step; Reset drops it, as the initialisation-gain paper does
// after every aggregation (Algorithm 1, line 15).
type Optimizer interface {
	// Step applies one update: params and grads must have the same length,
	// and the same length as on every Step since the last Reset.
	Step(params, grads []float32) error
	// Reset clears the state, as if no Step had been taken.
	Reset()
}

// checkStep validates the slice lengths against the optimiser's state
// and sizes the state on first use. state lists the state buffers.
func checkStep(params, grads []float32, state ...*[]float32) error {
	if len(params) != len(grads) {
		return fmt.Errorf("%w: %d parameters, %d gradients", ErrShape, len(params), len(grads))
	}
	for _, s := range state {
		switch {
		case *s == nil:
			*s = make([]float32, len(params))
		case len(*s) != len(params):
			return fmt.Errorf("%w: optimiser state for %d parameters, got %d (Reset first)", ErrShape, len(*s), len(params))
		}
	}
	return nil
}

func checkHyper(name string, v float32, lo, hi float64) error {
	x := float64(v)
	if math.IsNaN(x) || x < lo || x > hi {
		return fmt.Errorf("%w: %s = %v, want in [%v, %v]", ErrConfig, name, v, lo, hi)
	}
	return nil
}
