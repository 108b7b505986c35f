package dflsim

import "errors"

// Errors returned by the package, wrapped with %w.
var (
	// ErrConfig: a run's configuration is invalid.
	ErrConfig = errors.New("dflsim: invalid configuration")
	// ErrRun: the simulation failed (a peer or the network refused an
	// input the harness produced).
	ErrRun = errors.New("dflsim: run failed")
)
