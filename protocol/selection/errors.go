package selection

import "errors"

// Errors returned by the package, wrapped with %w; test with errors.Is.
var (
	// ErrConfig: the configuration is invalid for its Kind.
	ErrConfig = errors.New("selection: invalid configuration")
	// ErrRound: a round number below 1.
	ErrRound = errors.New("selection: invalid round")
	// ErrCandidates: a sample repeats a peer, holds self, or carries an
	// evaluation outside its range.
	ErrCandidates = errors.New("selection: invalid candidates")
	// ErrWeights: weights of the wrong count, negative, non-finite or
	// all zero, or an accuracy outside [0, 1].
	ErrWeights = errors.New("selection: invalid weights")
	// ErrUnknownPeer: a peer missing from the cluster map.
	ErrUnknownPeer = errors.New("selection: peer not in the cluster map")
	// ErrRNG: Select needs a random source and got nil.
	ErrRNG = errors.New("selection: nil random source")
)
