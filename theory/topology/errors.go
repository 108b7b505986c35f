package topology

import "errors"

// Sentinel errors; functions wrap them with %w, so test with errors.Is.
var (
	// ErrInvalidArgument reports a bad parameter: n < 1, a degree that is
	// odd or too large, a probability outside [0, 1], NaN, ...
	ErrInvalidArgument = errors.New("topology: invalid argument")
	// ErrDisconnected reports a metric that is undefined on a disconnected
	// graph (diameter, average shortest path, v_steady).
	ErrDisconnected = errors.New("topology: graph is disconnected")
	// ErrGenerationFailed reports a random construction that did not
	// succeed within its retry budget.
	ErrGenerationFailed = errors.New("topology: random generation failed")
	// ErrNotConverged reports an iterative method that did not reach its
	// tolerance within its iteration budget.
	ErrNotConverged = errors.New("topology: iteration did not converge")
	// ErrEigen reports a failed eigendecomposition.
	ErrEigen = errors.New("topology: eigendecomposition failed")
)
