package scenario

import "errors"

var (
	// ErrUnknownScenario is returned for a name no scenario registered.
	ErrUnknownScenario = errors.New("scenario: unknown scenario")
	// ErrNoData is returned when a scenario's dataset is missing.
	ErrNoData = errors.New("scenario: dataset not found (run `make data`)")
	// ErrSize is returned for an Options.N the scenario cannot run with.
	ErrSize = errors.New("scenario: unsupported number of peers")
)
