package signal

import "github.com/peerlearn/peerlearn/internal/wire"

// MsgType is a message's type on the wire. Values are fixed: append new
// types, never renumber or reuse one.
type MsgType uint8

const (
	// MsgChallenge (server -> client, first message): a fresh nonce the
	// hello must sign.
	MsgChallenge MsgType = 1
	// MsgHello (client -> server): the peer's ID, key, task and signature.
	MsgHello MsgType = 2
	// MsgWelcome (server -> client): contacts, ICE servers, task spec.
	MsgWelcome MsgType = 3
	// MsgRelay (both ways): SDP or an ICE candidate for a named peer.
	MsgRelay MsgType = 4
	// MsgConnected (client -> server): a data channel with the named peer
	// is open. From a new peer about one of its contacts: its first
	// connection, and its bootstrap window closes; from a contact about
	// a new peer it answered: the confirmation the server needs to
	// believe that peer's claim.
	MsgConnected MsgType = 5
	// MsgBye (both ways): the sender is leaving.
	MsgBye MsgType = 6
	// MsgError (server -> client): something the client sent was refused.
	MsgError MsgType = 7
	// MsgPing (client -> server): keepalive; answered MsgPong.
	MsgPing MsgType = 8
	// MsgPong (server -> client): the answer to MsgPing.
	MsgPong MsgType = 9
	// MsgSummary (client -> server): the peer's signed progress (round,
	// accuracy, samples, bytes), sent at a low rate where the volunteer
	// opted in; the server aggregates it per task for the page and
	// /metrics, and training never depends on it.
	MsgSummary MsgType = 10
)

var msgTypeNames = wire.Names[MsgType]{Kind: "MsgType", Names: []string{
	MsgChallenge: "challenge", MsgHello: "hello", MsgWelcome: "welcome",
	MsgRelay: "relay", MsgConnected: "connected", MsgBye: "bye",
	MsgError: "error", MsgPing: "ping", MsgPong: "pong", MsgSummary: "summary",
}}

// Valid reports whether t is a known type.
func (t MsgType) Valid() bool { return msgTypeNames.Known(t) }

// String names the type.
func (t MsgType) String() string { return msgTypeNames.String(t) }
