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
	// MsgAggregated: round k is aggregated (Count models), from its
	// aggregator to every other member of S^k and S^k+1: the members of
	// S^k stop waiting, those of S^k+1 wait for train(k+1). Header only.
	MsgAggregated MsgType = 3
	// MsgOver: round k is over (Count models, as far as the sender
	// knows), from a peer that did not aggregate it: an answer to an
	// escalated model, or a member of S^k+1 handing a rank its turn to
	// restart round k+1. Unlike MsgAggregated it says nothing about
	// which ranks of S^k missed their role. Header only.
	MsgOver MsgType = 4

	numTypes = 4
)

// carriesModel reports whether messages of type t have a model header
// and parameters as payload.
func (t MsgType) carriesModel() bool { return t == MsgTrain || t == MsgTrained }

var msgTypeNames = wire.Names[MsgType]{Kind: "MsgType", Names: []string{
	MsgTrain: "MsgTrain", MsgTrained: "MsgTrained", MsgAggregated: "MsgAggregated", MsgOver: "MsgOver",
}}

// String names the type.
func (t MsgType) String() string { return msgTypeNames.String(t) }

func (t MsgType) known() bool { return msgTypeNames.Known(t) }
