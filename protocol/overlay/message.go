package overlay

import (
	"fmt"

	"github.com/peerlearn/peerlearn/internal/wire"
	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

// MsgType is the kind of a Message. The values are part of the wire
// format: append new types at the end with the next free number, never
// renumber or reuse one.
type MsgType uint8

const (
	// MsgInvalid is the zero value; it is never sent.
	MsgInvalid MsgType = 0
	// MsgJoin (joiner -> any member): start Neighbor_discovery for the
	// joiner in every space whose bit is set in Roles (bit i = space i).
	MsgJoin MsgType = 1
	// MsgDiscover is Neighbor_discovery: greedy-routed in Space towards
	// Coordinate(Origin, Space); it stops at the node closest to it.
	MsgDiscover MsgType = 2
	// MsgDiscoverReply (closest node -> joiner): Peers = [pred, succ], the
	// joiner's adjacent nodes in Space. Roles holds flags (ReplyGuess).
	MsgDiscoverReply MsgType = 3
	// MsgLink: "you are my neighbour in the slots set in Roles", sent when
	// a node adopts a neighbour that did not tell it so itself.
	MsgLink MsgType = 4
	// MsgHeartbeat: sent every T ticks to every neighbour; Roles as in
	// MsgLink, so each heartbeat also checks the link is mutual. Peers is
	// the sender's neighbour set (for lookahead routing; empty when the
	// sender's Config.Lookahead is off).
	MsgHeartbeat MsgType = 5
	// MsgHint: "your Side neighbour in Space should be Peers[0]": the
	// answer to a Link/Heartbeat claim the receiver could not accept
	// because it knows a node in between.
	MsgHint MsgType = 6
	// MsgLeave: the sender leaves. Peers = its [pred, succ] in every space
	// (2*Spaces IDs, zero where a slot is empty); each receiver links to
	// the leaver's other adjacent node in the spaces it shared.
	MsgLeave MsgType = 7
	// MsgRepair is Neighbor_repair: routed along one direction of Space
	// to the node that should be Origin's Side neighbour there.
	MsgRepair MsgType = 8
	// MsgRepairReply (where a Repair stopped -> Origin): "I am your Side
	// neighbour in Space".
	MsgRepairReply MsgType = 9
	// MsgRoute carries an upper layer's Payload, greedy-routed in Space to
	// the node closest to Target; when TargetID is not zero only that node
	// accepts it.
	MsgRoute MsgType = 10

	numMsgTypes = 11
)

// msgTypeNames names MsgInvalid too, for logs and scripts; whether a type
// may go on the wire is the codec's check, not the table's.
var msgTypeNames = wire.Names[MsgType]{Kind: "MsgType", Names: []string{
	"Invalid", "Join", "Discover", "DiscoverReply", "Link", "Heartbeat",
	"Hint", "Leave", "Repair", "RepairReply", "Route",
}}

// String returns the type's name.
func (t MsgType) String() string { return msgTypeNames.String(t) }

// MsgTypes lists every valid message type in wire order.
func MsgTypes() []MsgType {
	ts := make([]MsgType, 0, numMsgTypes-1)
	for t := MsgType(1); t < numMsgTypes; t++ {
		ts = append(ts, t)
	}
	return ts
}

// Side names one of a node's two adjacent nodes in a space. Clockwise is
// the direction of increasing coordinate. Part of the wire format.
type Side uint8

const (
	// Pred is the adjacent node counterclockwise (the predecessor).
	Pred Side = 0
	// Succ is the adjacent node clockwise (the successor).
	Succ Side = 1
)

// Opposite returns the other side.
func (s Side) Opposite() Side { return 1 - s }

func (s Side) String() string {
	if s == Pred {
		return "pred"
	}
	return "succ"
}

// ReplyGuess flags a DiscoverReply given by a node that did not know its
// own adjacent nodes in the space: the joiner should verify it.
const ReplyGuess uint32 = 1

// RoleBit is the bit of a Roles mask that stands for slot (space, side):
// bit 2*space+side.
func RoleBit(space int, side Side) uint32 { return 1 << (2*uint(space) + uint(side)) }

// Message is every NDMP and routing message. Which fields a type uses is
// fixed (see fieldsOf); the others must be zero. The codec carries exactly
// those fields. From and To address the single hop; routed messages keep
// their originator in Origin.
type Message struct {
	Type MsgType
	From ident.Peer // the sending node (this hop)
	To   ident.Peer // the receiving node (this hop)

	Origin   ident.Peer   // Discover, Repair, Route: the node the message works for
	Space    uint8        // ring space, for the types that concern one space
	Side     Side         // Hint, Repair, RepairReply: which slot is meant
	Hops     uint8        // routed types: hops travelled so far
	Best     uint64       // routed types: best score a lookahead hop has promised (routing.go)
	Roles    uint32       // Join: spaces to discover; Link, Heartbeat: slots (RoleBit)
	Target   Coord        // Route: destination coordinate in Space
	TargetID ident.Peer   // Route: the one node to deliver to; zero = whoever is closest
	Peers    []ident.Peer // DiscoverReply, Hint, Leave: node IDs (see each type)
	Payload  []byte       // Route: opaque upper-layer bytes

	// Records are the peer records of the IDs the message names, under
	// admitted placement (records.go); none otherwise. Any type but Route.
	Records []admission.Token
}

func (m Message) String() string {
	return fmt.Sprintf("%v %v->%v", m.Type, m.From, m.To)
}

// field flags: which optional fields a message type carries.
type fieldSet uint16

const (
	fOrigin fieldSet = 1 << iota
	fSpace
	fSide
	fHops
	fBest
	fRoles
	fTarget
	fTargetID
	fPeers
	fPayload
)

// fieldsOf is the table of which fields each type carries (append-only
// along with MsgType).
var fieldsOf = [numMsgTypes]fieldSet{
	MsgJoin:          fRoles,
	MsgDiscover:      fOrigin | fSpace | fHops | fBest,
	MsgDiscoverReply: fSpace | fRoles | fPeers,
	MsgLink:          fRoles,
	MsgHeartbeat:     fRoles | fPeers,
	MsgHint:          fSpace | fSide | fPeers,
	MsgLeave:         fPeers,
	MsgRepair:        fOrigin | fSpace | fSide | fHops | fBest,
	MsgRepairReply:   fSpace | fSide,
	MsgRoute:         fOrigin | fSpace | fHops | fBest | fTarget | fTargetID | fPayload,
}

// peerCount bounds len(Peers) per type: min and max.
func peerCount(t MsgType) (lo, hi int) {
	switch t {
	case MsgDiscoverReply:
		return 2, 2
	case MsgHint:
		return 1, 1
	case MsgLeave:
		return 2, 2 * MaxSpaces
	case MsgHeartbeat:
		return 0, 2 * MaxSpaces
	}
	return 0, 0
}
