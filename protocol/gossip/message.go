package gossip

import (
	"github.com/peerlearn/peerlearn/internal/wire"
	"github.com/peerlearn/peerlearn/types/ident"
)

// MsgType is the type of a gossip message. Values are part of the wire
// format: append new types, never renumber or reuse one.
type MsgType uint8

const (
	// MsgModel: the sender's current model and its age; the parameters
	// are the payload.
	MsgModel MsgType = 1
	// MsgRound: D-PSGD on a graph (RoundNode): the sender's model at the
	// end of round Age, and its degree; the parameters are the payload.
	MsgRound MsgType = 2
)

var msgTypeNames = wire.Names[MsgType]{Kind: "MsgType", Names: []string{MsgModel: "MsgModel", MsgRound: "MsgRound"}}

// String names the type.
func (t MsgType) String() string { return msgTypeNames.String(t) }

func (t MsgType) known() bool { return msgTypeNames.Known(t) }

// Message is one gossip message. The codec encodes everything but To and
// Params: To is the transport's address, Params its payload.
type Message struct {
	Type MsgType
	// From is the sender.
	From ident.Peer
	// To is the receiver (not encoded; zero after Decode).
	To ident.Peer
	// Age is the model's age: the number of training samples (or steps)
	// it has seen, merged as max over merges (0 to MaxAge). In a
	// MsgRound it is the D-PSGD round the model ends.
	Age uint64
	// Degree is the sender's number of graph neighbours (MsgRound only:
	// the receiver's Metropolis-Hastings weight needs it; 0 and not
	// encoded in a MsgModel).
	Degree uint16
	// Arch is the architecture and shape tag (1 to MaxArchLen bytes).
	Arch string
	// NumParams is the length of Params (1 to MaxParams).
	NumParams uint32
	// Params is the payload. The sender's slice is shared, not copied:
	// nobody may modify it.
	Params []float32
}

// PayloadBytes is the size of the payload: 4 bytes per parameter.
func (m Message) PayloadBytes() int64 { return 4 * int64(m.NumParams) }
