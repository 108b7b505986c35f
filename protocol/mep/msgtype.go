package mep

import "github.com/peerlearn/peerlearn/internal/wire"

// MsgType is the type of a MEP message. Values are part of the wire
// format: append new types, never renumber or reuse one.
type MsgType uint8

const (
	// MsgOffer: the sender offers its current model (Version,
	// Fingerprint) to the receiver.
	MsgOffer MsgType = 1
	// MsgHave: the receiver of an offer already holds that model (or a
	// newer one from the offerer); nothing is sent.
	MsgHave MsgType = 2
	// MsgNeed: the receiver of an offer wants the model.
	MsgNeed MsgType = 3
	// MsgModel: a model header; the transport carries Params (and
	// Hessian) after it.
	MsgModel MsgType = 4
)

var msgTypeNames = wire.Names[MsgType]{Kind: "MsgType", Names: []string{
	MsgOffer: "MsgOffer", MsgHave: "MsgHave", MsgNeed: "MsgNeed", MsgModel: "MsgModel",
}}

// String names the type.
func (t MsgType) String() string { return msgTypeNames.String(t) }

// known reports whether t is a type this version defines.
func (t MsgType) known() bool { return msgTypeNames.Known(t) }
