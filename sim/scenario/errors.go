package scenario

import "errors"

var (
	// ErrUnknownScenario is returned for a name no scenario registered.
	ErrUnknownScenario = errors.New("scenario: unknown scenario")
	// ErrNoData is returned when a scenario's dataset is missing.
	ErrNoData = errors.New("scenario: dataset not found (run `make data`)")
	// ErrDataset is returned for a data set the engine does not have, or
	// any data set for a scenario that learns none.
	ErrDataset = errors.New("scenario: unsupported data set")
	// ErrSize is returned for an Options.N the scenario cannot run with.
	ErrSize = errors.New("scenario: unsupported number of peers")
)
