package signal

import "github.com/peerlearn/peerlearn/internal/wire"

// RelayKind says what a relay carries. The server does not look inside;
// the kind is for the peers and the counters. Values are fixed: append
// new kinds, never renumber or reuse one.
type RelayKind uint8

const (
	// RelayOffer: an SDP offer (JSON of an RTCSessionDescriptionInit).
	RelayOffer RelayKind = 1
	// RelayAnswer: an SDP answer.
	RelayAnswer RelayKind = 2
	// RelayCandidate: an ICE candidate (JSON of an RTCIceCandidateInit).
	RelayCandidate RelayKind = 3
)

var relayKindNames = wire.Names[RelayKind]{Kind: "RelayKind", Names: []string{
	RelayOffer: "offer", RelayAnswer: "answer", RelayCandidate: "candidate",
}}

// Valid reports whether k is a known kind.
func (k RelayKind) Valid() bool { return relayKindNames.Known(k) }

// String names the kind.
func (k RelayKind) String() string { return relayKindNames.String(k) }
