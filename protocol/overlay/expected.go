package overlay

import (
	"cmp"
	"slices"

	"github.com/peerlearn/peerlearn/types/ident"
)

// ExpectedTables returns the correct neighbour table (Definition 1) of
// every node in ids, computed from the whole membership: in each space
// the nodes sorted by (coordinate, ID), each adjacent to the next and
// previous. With one node its slots are empty; with two each is the
// other's predecessor and successor. For tests and experiments: nodes
// never see the whole membership.
func ExpectedTables(ids []ident.Peer, spaces int) map[ident.Peer]Table {
	return ExpectedTablesAt(ids, spaces, Coordinate)
}

// ExpectedTablesAt is ExpectedTables with the coordinates of a placement
// (under admitted placement, each ID's record's).
func ExpectedTablesAt(ids []ident.Peer, spaces int, coord func(ident.Peer, int) Coord) map[ident.Peer]Table {
	out := make(map[ident.Peer]Table, len(ids))
	for _, id := range ids {
		out[id] = make(Table, spaces)
	}
	if len(ids) < 2 {
		return out
	}
	ring := make([]pos, len(ids))
	for i := range spaces {
		for k, id := range ids {
			ring[k] = pos{coord(id, i), id}
		}
		slices.SortFunc(ring, func(a, b pos) int {
			if c := cmp.Compare(a.c, b.c); c != 0 {
				return c
			}
			return compareIDs(a.id, b.id)
		})
		for k, p := range ring {
			out[p.id][i] = Adjacent{
				Pred: ring[(k+len(ring)-1)%len(ring)].id,
				Succ: ring[(k+1)%len(ring)].id,
			}
		}
	}
	return out
}

// Correctness compares actual neighbour tables with the correct ones
// for the same set of nodes.
type Correctness struct {
	Nodes int
	// Expected is the sum of the correct neighbour-set sizes, Correct how
	// many of those neighbours the nodes have, Extra how many neighbours
	// they have that they should not (failed or wrong nodes).
	Expected, Correct, Extra int
	// WrongSlots counts (node, space, side) slots that differ from the
	// correct table, a stricter test than the neighbour sets.
	WrongSlots int
}

// Fraction is the paper's topology correctness: correct neighbours over
// all neighbours, Correct / (Expected + Extra); 1 exactly when every
// neighbour set is correct.
func (c Correctness) Fraction() float64 {
	if c.Expected+c.Extra == 0 {
		return 1
	}
	return float64(c.Correct) / float64(c.Expected+c.Extra)
}

// OK reports whether the overlay is correct: every slot of every node
// holds its adjacent node.
func (c Correctness) OK() bool {
	return c.WrongSlots == 0 && c.Extra == 0 && c.Correct == c.Expected
}

// Check measures actual (the tables of all live nodes, by ID) against
// ExpectedTables of the same IDs.
func Check(actual map[ident.Peer]Table, spaces int) Correctness {
	return CheckAt(actual, spaces, Coordinate)
}

// CheckAt is Check under the placement coord (ExpectedTablesAt).
func CheckAt(actual map[ident.Peer]Table, spaces int, coord func(ident.Peer, int) Coord) Correctness {
	ids := make([]ident.Peer, 0, len(actual))
	for id := range actual {
		ids = append(ids, id)
	}
	want := ExpectedTablesAt(ids, spaces, coord)
	c := Correctness{Nodes: len(ids)}
	for id, got := range actual {
		w := want[id]
		for i := range w {
			if i >= len(got) || got[i].Pred != w[i].Pred {
				c.WrongSlots++
			}
			if i >= len(got) || got[i].Succ != w[i].Succ {
				c.WrongSlots++
			}
		}
		wn, gn := w.Neighbors(), got.Neighbors()
		c.Expected += len(wn)
		for _, g := range gn {
			if _, ok := slices.BinarySearchFunc(wn, g, compareIDs); ok {
				c.Correct++
			} else {
				c.Extra++
			}
		}
	}
	return c
}
