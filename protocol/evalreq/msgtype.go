package evalreq

import "github.com/peerlearn/peerlearn/internal/wire"

// MsgType is the type of an evaluation message. Values are part of the
// wire format: append new types, never renumber or reuse one.
type MsgType uint8

const (
	// MsgEvalRequest: evaluate the attached model on your training data.
	MsgEvalRequest MsgType = 1
	// MsgEvalResult: the loss and accuracy of the requester's model on
	// the responder's training data.
	MsgEvalResult MsgType = 2
	// MsgEvalRefused: the responder declines; Reason says why.
	MsgEvalRefused MsgType = 3
)

var msgTypeNames = wire.Names[MsgType]{Kind: "MsgType", Names: []string{
	MsgEvalRequest: "MsgEvalRequest", MsgEvalResult: "MsgEvalResult", MsgEvalRefused: "MsgEvalRefused",
}}

// String names the type.
func (t MsgType) String() string { return msgTypeNames.String(t) }

func (t MsgType) known() bool { return msgTypeNames.Known(t) }

// Reason says why a request was refused. Values are part of the wire
// format: append new reasons, never renumber.
type Reason uint8

const (
	// ReasonRateLimited: the responder's evaluation budget is spent;
	// asking again later may succeed.
	ReasonRateLimited Reason = 1
	// ReasonPolicy: the responder does not evaluate models for others.
	ReasonPolicy Reason = 2
	// ReasonBadModel: the model has another architecture or length than
	// the responder's, or non-finite parameters.
	ReasonBadModel Reason = 3
)

var reasonNames = wire.Names[Reason]{Kind: "Reason", Names: []string{
	ReasonRateLimited: "rate-limited", ReasonPolicy: "policy", ReasonBadModel: "bad-model",
}}

// String names the reason.
func (r Reason) String() string { return reasonNames.String(r) }

func (r Reason) known() bool { return reasonNames.Known(r) }
