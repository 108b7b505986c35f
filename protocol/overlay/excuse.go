package overlay

import "github.com/peerlearn/peerlearn/types/ident"

// Excuses. When this node answers a joiner u's Neighbor_discovery, it
// links u in place of an adjacent node p, and u itself tells p next (a
// Link, one hop after our reply). Until then p's heartbeats still claim
// us; hinting p about u would only race u's own Link. So for a short
// while (SuspectTicks) we excuse p's claims on that slot instead of
// answering them; if u's Link was lost, p's later claims get their Hint.

type excuse struct {
	id    ident.Peer
	slot  uint32 // RoleBit of our slot p held
	until int64
}

// excuse records that id's claims on slot are excused for a while.
func (n *Node) excuse(id ident.Peer, slot uint32) {
	n.dropExcuses()
	if len(n.grace) >= 2*n.cfg.Spaces {
		n.grace = n.grace[1:]
	}
	n.grace = append(n.grace, excuse{id: id, slot: slot, until: n.now + int64(n.cfg.SuspectTicks)})
}

// excused reports whether id's claim on slot is excused now.
func (n *Node) excused(id ident.Peer, slot uint32) bool {
	n.dropExcuses()
	for _, e := range n.grace {
		if e.id == id && e.slot == slot {
			return true
		}
	}
	return false
}

func (n *Node) dropExcuses() {
	n.grace = dropExpired(n.grace, n.now, func(e excuse) int64 { return e.until })
}
