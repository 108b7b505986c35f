package pushsum

import (
	"github.com/peerlearn/peerlearn/internal/wire"
	"github.com/peerlearn/peerlearn/types/ident"
)

// MsgType is the type of a push-sum message. Values are part of the wire
// format: append new types, never renumber or reuse one.
type MsgType uint8

// MsgShare carries a share of the sender's (s, w) in its leader's
// instance.
const MsgShare MsgType = 1

var msgTypeNames = wire.Names[MsgType]{Kind: "MsgType", Names: []string{MsgShare: "MsgShare"}}

// String names the type.
func (t MsgType) String() string { return msgTypeNames.String(t) }

func (t MsgType) known() bool { return msgTypeNames.Known(t) }

// Message is one push-sum share. To is not on the wire (the transport
// knows the receiver).
type Message struct {
	Type     MsgType
	From, To ident.Peer
	// Leader is the ID whose instance the share belongs to.
	Leader ident.Peer
	// Round is the sender's round (informational: shares are added in
	// any order).
	Round uint32
	// S and W are the share of the value and of the weight.
	S, W float64
}
