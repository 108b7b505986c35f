package plexus

import "github.com/peerlearn/peerlearn/internal/wire"

// MsgType is the type of a Plexus message. Values are part of the wire
// format: append new types, never renumber or reuse one.
type MsgType uint8

const (
	// MsgTrain: train(k, θ) of Algorithm 2, the aggregator of round k-1
	// pushing the aggregated model θ to a member of S^k; the parameters
	// are the payload.
	MsgTrain MsgType = 1
	// MsgTrained: aggregate(k, θ_j) of Algorithm 2, a member of S^k
	// pushing its trained model to the aggregator of rank Attempt.
	MsgTrained MsgType = 2
	// MsgAggregated: round k is aggregated (Count models); tells the
	// members of S^k that are not in S^k+1 to stop waiting. Header only.
	MsgAggregated MsgType = 3

	numTypes = 3
)

var msgTypeNames = wire.Names[MsgType]{Kind: "MsgType", Names: []string{
	MsgTrain: "MsgTrain", MsgTrained: "MsgTrained", MsgAggregated: "MsgAggregated",
}}

// String names the type.
func (t MsgType) String() string { return msgTypeNames.String(t) }

func (t MsgType) known() bool { return msgTypeNames.Known(t) }
