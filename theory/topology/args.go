package topology

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// wrapf returns an error wrapping sentinel with a message.
func wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}

// errorf wraps ErrInvalidArgument with a message.
func errorf(format string, args ...any) error {
	return wrapf(ErrInvalidArgument, format, args...)
}

// checkProb rejects p outside [0, 1] (NaN included).
func checkProb(name string, p float64) error {
	if !(p >= 0 && p <= 1) {
		return errorf("%s = %v, want 0 <= %s <= 1", name, p, name)
	}
	return nil
}

// checkFinite rejects NaN and ±Inf.
func checkFinite(name string, x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return errorf("%s = %v, want a finite number", name, x)
	}
	return nil
}

// checkRNG rejects a nil generator.
func checkRNG(rng *rand.Rand) error {
	if rng == nil {
		return errorf("nil rng")
	}
	return nil
}
