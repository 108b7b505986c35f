package netpeer

import (
	"errors"
)

// Sentinel errors. Functions wrap them with %w and context; test with
// errors.Is.
var (
	// ErrConfig: a Config field is out of range.
	ErrConfig = errors.New("netpeer: invalid config")
	// ErrBootstrap: the signalling server could not be reached or
	// refused the peer.
	ErrBootstrap = errors.New("netpeer: bootstrap failed")
	// ErrState: a method called in the wrong state (Run twice).
	ErrState = errors.New("netpeer: wrong state")
)

// Why a pull is refused (observers.go).
var (
	errObserverNeighbour = errors.New("an overlay neighbour cannot be an observer")
	errObserversFull     = errors.New("serving as many observers as it may")
)
