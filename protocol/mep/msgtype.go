package mep

import "strconv"

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

// String names the type.
func (t MsgType) String() string {
	switch t {
	case MsgOffer:
		return "MsgOffer"
	case MsgHave:
		return "MsgHave"
	case MsgNeed:
		return "MsgNeed"
	case MsgModel:
		return "MsgModel"
	}
	return "MsgType(" + strconv.Itoa(int(t)) + ")"
}

// known reports whether t is a type this version defines.
func (t MsgType) known() bool { return t >= MsgOffer && t <= MsgModel }
