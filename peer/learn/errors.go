package learn

import "errors"

// Errors returned by the package, wrapped with %w; test with errors.Is.
var (
	// ErrConfig: a configuration is invalid.
	ErrConfig = errors.New("learn: invalid configuration")
	// ErrBusy: a Work is outstanding (not yet handed to Finish or Abort).
	ErrBusy = errors.New("learn: a work is already outstanding")
	// ErrWork: Finish was given a Work that is not this peer's outstanding
	// one, or that has not run.
	ErrWork = errors.New("learn: not the outstanding work, or not run")
	// ErrTrain: local training or aggregation failed; the round is
	// abandoned and the peer keeps its previous model.
	ErrTrain = errors.New("learn: local round failed")
	// ErrNoModel: the peer has no model to publish or evaluate yet.
	ErrNoModel = errors.New("learn: no model yet")
	// ErrScreened: a neighbour's model did much worse on our held-out
	// data than ours (Config.Screen) and was not aggregated.
	ErrScreened = errors.New("learn: neighbour model failed the screen")
	// ErrMode: an asynchronous call on a peer used synchronously, or the
	// reverse.
	ErrMode = errors.New("learn: wrong mode for this call")
	// ErrNotEvaluating: a ParamsEvaluator cannot evaluate now (a tab's
	// trainer worker that has failed); the caller evaluates on a model
	// of its own.
	ErrNotEvaluating = errors.New("learn: the backend does not evaluate now")
)
