package overlay

import "github.com/peerlearn/peerlearn/types/ident"

// Tombstones: a short memory of neighbours that failed or left, so that
// stale hearsay (a Hint or DiscoverReply naming a node that is gone) does
// not put them back in the table. A failed node's tombstone is soft: any
// message from the node itself proves it alive and lifts it. A departed
// node's is hard: it said goodbye.

type tombstone struct {
	id    ident.Peer
	until int64 // tick at which it expires
	hard  bool
	heard int64 // a failed node's: the tick it was last heard from
}

func (n *Node) bury(id ident.Peer, hard bool, heard int64) {
	if n.cfg.MaxTombstones == 0 || n.cfg.TombstoneTicks == 0 {
		return
	}
	n.unbury(id)
	if len(n.tombs) == n.cfg.MaxTombstones {
		n.tombs = n.tombs[1:] // forget the oldest
	}
	n.tombs = append(n.tombs, tombstone{id: id, until: n.now + int64(n.cfg.TombstoneTicks), hard: hard, heard: heard})
}

func (n *Node) tombstoned(id ident.Peer) bool {
	for _, t := range n.tombs {
		if t.id == id {
			return true
		}
	}
	return false
}

// heardFrom lifts a soft tombstone: the node just sent us a message, so
// it had stalled (stall.go).
func (n *Node) heardFrom(id ident.Peer) {
	for k, t := range n.tombs {
		if t.id == id && !t.hard {
			n.tombs = append(n.tombs[:k], n.tombs[k+1:]...)
			n.stalled(id, t.heard)
			return
		}
	}
}

func (n *Node) departed(id ident.Peer) bool {
	for _, t := range n.tombs {
		if t.id == id && t.hard {
			return true
		}
	}
	return false
}

func (n *Node) unbury(id ident.Peer) {
	for k, t := range n.tombs {
		if t.id == id {
			n.tombs = append(n.tombs[:k], n.tombs[k+1:]...)
			return
		}
	}
}

// expireTombstones forgets those whose time is up (they are in order of
// burial and all last TombstoneTicks, so expired ones are a prefix).
func (n *Node) expireTombstones() {
	n.tombs = dropExpired(n.tombs, n.now, func(t tombstone) int64 { return t.until })
}
