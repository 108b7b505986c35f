package initgain

import (
	"errors"
	"fmt"
)

// Sentinel errors; functions wrap them with %w, so test with errors.Is.
var (
	// ErrInvalidArgument reports a bad parameter: n < 1, NaN, a nil
	// graph or generator, a mixing row that does not sum to 1, ...
	ErrInvalidArgument = errors.New("initgain: invalid argument")
	// ErrDisconnected reports a graph or mixing matrix whose stationary
	// vector is not unique (the gain is then undefined).
	ErrDisconnected = errors.New("initgain: graph is not (strongly) connected")
	// ErrNoGiantComponent reports a family whose random graphs have no
	// giant component (mean degree <= 1), so no n-node network exists.
	ErrNoGiantComponent = errors.New("initgain: model has no giant component")
	// ErrNotConverged reports an iteration that missed its tolerance.
	ErrNotConverged = errors.New("initgain: iteration did not converge")
)

// wrapf returns an error wrapping sentinel with a message.
func wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}

// errorf wraps ErrInvalidArgument with a message.
func errorf(format string, args ...any) error {
	return wrapf(ErrInvalidArgument, format, args...)
}

// checkN rejects a node count that is not a finite number >= 1.
func checkN(n float64) error {
	if !(n >= 1) || n > 1e300 {
		return errorf("n = %v, want a finite n >= 1", n)
	}
	return nil
}
