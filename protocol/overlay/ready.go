package overlay

import (
	"slices"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Ready is what a node wants done since the last Advance: messages to
// send, payloads routed to it, and changes to its neighbour set (a
// transport may open or close connections on them).
type Ready struct {
	// Messages to send, in order; each names its receiver in To.
	Messages []Message
	// Delivered are Route payloads that ended at this node.
	Delivered []Delivery
	// Added and Removed are the changes to the neighbour set.
	Added, Removed []ident.Peer
}

// Delivery is a Route payload that reached the node it was routed to.
type Delivery struct {
	Origin   ident.Peer // the node that called Route or RouteTo
	Space    int        // the space it was routed in
	Target   Coord      // the coordinate it was routed to
	TargetID ident.Peer // the node it was addressed to; zero for "closest to Target"
	Hops     int        // hops it travelled
	Payload  []byte
}

// HasReady reports whether Ready would return anything.
func (n *Node) HasReady() bool {
	if len(n.msgs) > 0 || len(n.delivered) > 0 || len(n.peers) != len(n.prev) {
		return true
	}
	for _, p := range n.peers {
		if p.link || !slices.Contains(n.prev, p.id) {
			return true
		}
	}
	return false
}

// Ready returns what the node wants done. Links owed to new neighbours
// are added to the outbox here, one message per neighbour however many
// slots it gained. Calling Ready again before Advance returns the same
// and more. The returned slices stay valid after Advance.
func (n *Node) Ready() Ready {
	for _, p := range n.peers {
		if p.link {
			p.link = false
			n.send(Message{Type: MsgLink, To: p.id, Roles: p.roles})
		}
	}
	rd := Ready{Messages: n.msgs, Delivered: n.delivered}
	for _, p := range n.peers {
		if !slices.Contains(n.prev, p.id) {
			rd.Added = append(rd.Added, p.id)
		}
	}
	for _, id := range n.prev {
		if n.find(id) == nil {
			rd.Removed = append(rd.Removed, id)
		}
	}
	return rd
}

// Advance acknowledges the last Ready: its messages were handed to the
// network and its neighbour changes applied.
func (n *Node) Advance() {
	n.msgs, n.delivered = nil, nil
	n.prev = n.prev[:0]
	for _, p := range n.peers {
		n.prev = append(n.prev, p.id)
	}
}
