package rtc

import "github.com/peerlearn/peerlearn/types/ident"

// actionKind says what the shell is to do.
type actionKind uint8

const (
	// actClose: the policy has dropped the link; the shell tears its
	// connection down (fails its queued transfers, reports EventDown if
	// it was open, closes the peer connection).
	actClose actionKind = iota + 1
	// actReport: tell the signalling server that this peer is connected
	// (to Peer), closing its bootstrap window there.
	actReport
)

// closeCause says why the policy dropped a link.
type closeCause uint8

const (
	causeShell    closeCause = iota + 1 // the shell reported a failure (Why says which)
	causeTimeout                        // not open after ConnectTimeout
	causeStray                          // not a neighbour for Grace
	causeReplaced                       // a new offer from the peer replaced it
	causeOrphaned                       // its routed offer's first hop closed: no answer can come back
	causeShutdown                       // the manager is closing
	causeBanned                         // too many refused frames: the peer is banned for a while
	causeDenied                         // the application denied the peer for a while (Manager.Deny)
	causeEvicted                        // answering an offer through the server: a newer one took its slot
)

func (c closeCause) String() string {
	switch c {
	case causeShell:
		return "failed"
	case causeTimeout:
		return "not open after ConnectTimeout"
	case causeStray:
		return "not a neighbour"
	case causeReplaced:
		return "replaced by a new offer"
	case causeOrphaned:
		return "its offer's path closed"
	case causeShutdown:
		return "manager closed"
	case causeBanned:
		return "banned"
	case causeDenied:
		return "denied"
	case causeEvicted:
		return "its offer slot taken by a newer offer through the server"
	}
	return "unknown"
}

// action is one thing the policy wants the shell to do.
type action struct {
	kind    actionKind
	link    linkID
	peer    ident.Peer
	wasOpen bool       // actClose: the link was open (EventDown)
	cause   closeCause // actClose
	why     string     // actClose: detail (the shell's reason, or the orphaning hop)
}
