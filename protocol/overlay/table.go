package overlay

import (
	"hash/fnv"
	"slices"

	"github.com/peerlearn/peerlearn/types/ident"
)

// The neighbour table: per space a predecessor and a successor slot. A
// peer is a neighbour while it holds at least one slot; the table keeps at
// most 2L peers, with their coordinates cached.

// peer is a neighbour as this node knows it.
type peer struct {
	id        ident.Peer
	coords    []Coord // Coordinate(id, i) for every space i
	lastHeard int64   // tick of the last message from it (or of adoption)
	roles     uint32  // the slots it holds here (RoleBit)
	link      bool    // owes it a Link message: it does not know its roles yet
	// Its own neighbours as its last heartbeat listed them (Lookahead):
	// their coordinates, space-major per neighbour (k*L + space), and a
	// hash of the list to skip recomputing an unchanged one.
	nbrCoords []Coord
	nbrHash   uint64
	// listSent is the hash of the neighbour list whose records went with
	// the last heartbeat to it (records.go).
	listSent uint64
	// Failure detection (detector.go): its heartbeat intervals, the tick
	// of its last heartbeat, and the silence after which it is failed (0:
	// not computed yet).
	beats    intervals
	lastBeat int64
	beaten   bool
	timeout  int64
	floor    int64 // from its past stalls (stall.go); 0: none
}

func (n *Node) pos(p *peer, space int) pos { return pos{p.coords[space], p.id} }
func (n *Node) selfPos(space int) pos      { return pos{n.coords[space], n.id} }

func coordsOf(id ident.Peer, spaces int) []Coord {
	cs := make([]Coord, spaces)
	for i := range cs {
		cs[i] = Coordinate(id, i)
	}
	return cs
}

func (n *Node) find(id ident.Peer) *peer {
	for _, p := range n.peers {
		if p.id == id {
			return p
		}
	}
	return nil
}

// setSlot puts p in slot (space, side), displacing the holder; a displaced
// peer that holds no other slot stops being a neighbour.
func (n *Node) setSlot(space int, side Side, p *peer) {
	bit := RoleBit(space, side)
	if old := n.slots[space][side]; old != nil {
		old.roles &^= bit
		if old.roles == 0 {
			n.dropPeer(old)
			n.addContact(old.id) // displaced by a closer node, not dead
		}
	}
	n.slots[space][side] = p
	if p.roles == 0 && !slices.Contains(n.peers, p) {
		n.peers = append(n.peers, p)
		n.forgetContact(p.id)
	}
	p.roles |= bit
}

// dropPeer removes p from the table and every slot it holds.
func (n *Node) dropPeer(p *peer) {
	for i := range n.slots {
		for s := range n.slots[i] {
			if n.slots[i][s] == p {
				n.slots[i][s] = nil
			}
		}
	}
	p.roles = 0
	if k := slices.Index(n.peers, p); k >= 0 {
		n.peers = slices.Delete(n.peers, k, k+1)
	}
}

// consider offers id for slot (space, side): it is adopted when the slot is
// empty, or id lies strictly between this node and the holder, or the
// holder is suspected dead and id is not (if the holder was alive after
// all, its next heartbeat claims the slot back). Tombstoned IDs are
// refused.
func (n *Node) consider(id ident.Peer, space int, side Side) bool {
	if id == n.id || id == (ident.Peer{}) || n.tombstoned(id) {
		return false
	}
	h := n.slots[space][side]
	if h != nil && h.id == id {
		return false
	}
	p := n.find(id)
	if p == nil {
		cs, ok := n.coordsFor(id)
		if !ok {
			n.stats.NoRecord++ // Step checks first; a defence in depth
			return false
		}
		p = &peer{id: id, coords: cs, lastHeard: n.now, floor: n.stallFloor(id)}
	}
	if h != nil && !closerOn(side, n.selfPos(space), n.pos(p, space), n.pos(h, space)) &&
		!(n.suspect(h) && !n.suspect(p)) {
		return false
	}
	n.setSlot(space, side, p)
	return true
}

// suspect reports whether p has been silent long enough that routing
// should avoid it.
// The threshold moves with p's failure timeout (detector.go): a neighbour
// on a slow path is not avoided for delays normal on that path.
func (n *Node) suspect(p *peer) bool {
	return n.now-p.lastHeard >= int64(n.cfg.SuspectTicks)+n.failAfter(p)-int64(n.cfg.FailureTicks)
}

// Adjacent is a node's pair of adjacent nodes in one space; a zero ID
// marks an empty slot.
type Adjacent struct {
	Pred, Succ ident.Peer
}

// Table is a neighbour table: Adjacent for every space.
type Table []Adjacent

// Neighbors returns the neighbour set of t: the distinct non-zero IDs,
// sorted.
func (t Table) Neighbors() []ident.Peer {
	ids := make([]ident.Peer, 0, 2*len(t))
	for _, a := range t {
		for _, id := range [2]ident.Peer{a.Pred, a.Succ} {
			if id != (ident.Peer{}) {
				ids = append(ids, id)
			}
		}
	}
	slices.SortFunc(ids, compareIDs)
	return slices.Compact(ids)
}

// Equal reports whether t and u name the same adjacent nodes.
func (t Table) Equal(u Table) bool { return slices.Equal(t, u) }

func compareIDs(a, b ident.Peer) int {
	switch {
	case a.Less(b):
		return -1
	case b.Less(a):
		return 1
	}
	return 0
}

// Table returns the node's current neighbour table.
func (n *Node) Table() Table {
	t := make(Table, n.cfg.Spaces)
	for i, sl := range n.slots {
		if p := sl[Pred]; p != nil {
			t[i].Pred = p.id
		}
		if p := sl[Succ]; p != nil {
			t[i].Succ = p.id
		}
	}
	return t
}

// Neighbors returns the node's neighbour set, sorted.
func (n *Node) Neighbors() []ident.Peer {
	ids := make([]ident.Peer, len(n.peers))
	for k, p := range n.peers {
		ids[k] = p.id
	}
	slices.SortFunc(ids, compareIDs)
	return ids
}

// learnNeighbors records p's neighbour list from its heartbeat, for
// lookahead routing. This node itself is left out (it is no shortcut).
func (n *Node) learnNeighbors(p *peer, ids []ident.Peer) {
	if !n.cfg.Lookahead {
		return
	}
	sum := listHash(ids)
	if sum == p.nbrHash && (len(ids) == 0) == (p.nbrCoords == nil) {
		return
	}
	p.nbrHash = sum
	p.nbrCoords = p.nbrCoords[:0]
	for _, id := range ids {
		if id == n.id {
			continue
		}
		cs, ok := n.coordsFor(id)
		if !ok {
			continue // no record: no shortcut through it (records.go)
		}
		n.addContact(id)
		p.nbrCoords = append(p.nbrCoords, cs...)
	}
}

// listHash hashes a neighbour list.
func listHash(ids []ident.Peer) uint64 {
	h := fnv.New64a()
	for _, id := range ids {
		h.Write(id[:])
	}
	return h.Sum64()
}
