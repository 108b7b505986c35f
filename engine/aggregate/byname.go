package aggregate

import "fmt"

// Names lists the names New accepts.
func Names() []string { return []string{"mean", "decavg", "fedavg", "fedlay", "dechw"} }

// New returns the named aggregator with its default configuration
// (DecHW: a fresh per-peer state; create one per peer).
func New(name string) (Aggregator, error) {
	switch name {
	case "mean":
		return Mean{}, nil
	case "decavg":
		return DecAvg{}, nil
	case "fedavg":
		return FedAvg{}, nil
	case "fedlay":
		return NewFedLay(DefaultFedLayConfig())
	case "dechw":
		return NewDecHW(DefaultDecHWConfig())
	}
	return nil, fmt.Errorf("%w: %q (want one of %v)", ErrUnknown, name, Names())
}
