package overlay

import "github.com/peerlearn/peerlearn/types/ident"

// Ring order. In every space the nodes sit on a ring ordered by
// (coordinate, ID): coordinates increase clockwise and equal coordinates
// (which SHA-256 makes practically impossible) are ordered by ID, the same
// order the rest of the system (topology.FedLay, ExpectedTables) uses. A
// node's successor is the next node clockwise, its predecessor the next
// counterclockwise.

// pos is a node's place on one ring.
type pos struct {
	c  Coord
	id ident.Peer
}

// cwLess reports whether a comes strictly before b when walking clockwise
// from o (o itself excluded: a and b must differ from o).
func cwLess(o, a, b pos) bool {
	da, db := uint64(a.c-o.c), uint64(b.c-o.c)
	// At equal coordinate as o, a node with a smaller ID sits just before
	// o: clockwise from o it is the last node, not the first.
	wa := da == 0 && a.id.Less(o.id)
	wb := db == 0 && b.id.Less(o.id)
	if wa != wb {
		return wb
	}
	if da != db {
		return da < db
	}
	return a.id.Less(b.id)
}

// closerOn reports whether x would be a closer side neighbour of o than
// end: x lies strictly between o and end clockwise (side Succ) or
// counterclockwise (side Pred).
func closerOn(side Side, o, x, end pos) bool {
	if side == Succ {
		return cwLess(o, x, end)
	}
	return cwLess(o, end, x)
}
