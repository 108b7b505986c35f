package mep

import "github.com/peerlearn/peerlearn/engine/aggregate"

// RoundKind says what a round starts from.
type RoundKind uint8

const (
	// RoundAggregate: the peer has a model; aggregate Self with Models,
	// then train.
	RoundAggregate RoundKind = 1
	// RoundAdopt: the peer has no model yet (late joiner); aggregate the
	// neighbours' Models without one of its own, then train.
	RoundAdopt RoundKind = 2
	// RoundInit: no model anywhere in reach (fresh network); initialise
	// locally, then train.
	RoundInit RoundKind = 3
)

// Round asks the caller to aggregate and train once, then to call
// ReportTrained (or AbortRound). The vectors in Self and Models are
// shared with the state machine and the transport: read, never modify.
type Round struct {
	// Seq numbers this peer's rounds from 1.
	Seq uint64
	// Kind is the starting point.
	Kind RoundKind
	// Self is the peer's published model (RoundAggregate only).
	Self aggregate.Contribution
	// Models are the freshest models of the current neighbours that have
	// sent one, ordered by peer ID.
	Models []aggregate.Contribution
}

// Inputs returns the arguments for aggregate.Aggregator.Aggregate: self
// and the neighbours for RoundAggregate, the first neighbour as "self"
// and the rest for RoundAdopt; ok is false for RoundInit.
func (r *Round) Inputs() (self aggregate.Contribution, others []aggregate.Contribution, ok bool) {
	switch {
	case r.Kind == RoundAggregate:
		return r.Self, r.Models, true
	case r.Kind == RoundAdopt && len(r.Models) > 0:
		return r.Models[0], r.Models[1:], true
	}
	return aggregate.Contribution{}, nil, false
}
