package methodsim

import "errors"

var (
	// ErrConfig: a driver or helper was given an invalid configuration.
	ErrConfig = errors.New("methodsim: invalid configuration")
	// ErrRun: a run failed (every peer's training failed, or a state
	// machine refused what the driver fed it).
	ErrRun = errors.New("methodsim: run failed")
)
