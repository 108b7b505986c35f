package overlay

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

// TestCwLessMatchesRingOrder: walking clockwise from any node visits the
// others in (coordinate, ID) order, rotated; including equal coordinates.
func TestCwLessMatchesRingOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 2 + rng.IntN(12)
		ps := make([]pos, n)
		for k := range ps {
			ps[k] = pos{Coord(rng.Uint64()), testID(byte(k))}
			if trial%3 == 0 {
				ps[k].c = Coord(rng.IntN(3)) << 62 // force equal coordinates
			}
		}
		slices.SortFunc(ps, func(a, b pos) int {
			if c := cmp.Compare(a.c, b.c); c != 0 {
				return c
			}
			return compareIDs(a.id, b.id)
		})
		for k, o := range ps {
			for d := 1; d < n; d++ {
				for e := d + 1; e < n; e++ {
					a, b := ps[(k+d)%n], ps[(k+e)%n]
					if !cwLess(o, a, b) || cwLess(o, b, a) {
						t.Fatalf("from %v: %v should come before %v", o, a, b)
					}
				}
			}
		}
	}
}

func TestExpectedTables(t *testing.T) {
	if got := ExpectedTables([]ident.Peer{testID(1)}, 3)[testID(1)]; !got.Equal(make(Table, 3)) {
		t.Errorf("one node: %v, want empty slots", got)
	}
	two := ExpectedTables([]ident.Peer{testID(1), testID(2)}, 2)
	for _, a := range two[testID(1)] {
		if a.Pred != testID(2) || a.Succ != testID(2) {
			t.Errorf("two nodes: %v", two[testID(1)])
		}
	}
	// Against brute force: the successor is the node at the smallest
	// clockwise offset.
	var ids []ident.Peer
	for k := range 50 {
		ids = append(ids, testID(byte(k)))
	}
	want := ExpectedTables(ids, 4)
	for _, u := range ids {
		for i := range 4 {
			var succ, pred ident.Peer
			for _, v := range ids {
				if v == u {
					continue
				}
				o, pv := pos{Coordinate(u, i), u}, pos{Coordinate(v, i), v}
				if succ == (ident.Peer{}) || cwLess(o, pv, pos{Coordinate(succ, i), succ}) {
					succ = v
				}
				if pred == (ident.Peer{}) || cwLess(o, pos{Coordinate(pred, i), pred}, pv) {
					pred = v
				}
			}
			if got := want[u][i]; got.Succ != succ || got.Pred != pred {
				t.Fatalf("%v space %d: %+v, brute force pred %v succ %v", u, i, got, pred, succ)
			}
		}
	}
}

func TestCheck(t *testing.T) {
	var ids []ident.Peer
	for k := range 20 {
		ids = append(ids, testID(byte(k)))
	}
	tabs := ExpectedTables(ids, 3)
	if c := Check(tabs, 3); !c.OK() || c.Fraction() != 1 || c.Nodes != 20 {
		t.Fatalf("correct tables: %+v", c)
	}
	// Take a node out of the membership without repairing anyone: its
	// neighbours still list it (extra) and lack their new adjacent nodes.
	dead := tabs[ids[0]][0].Succ
	delete(tabs, dead)
	c := Check(tabs, 3)
	if c.OK() || c.Extra == 0 || c.WrongSlots == 0 || c.Fraction() >= 1 {
		t.Fatalf("after removing a node without repair: %+v", c)
	}
	if Check(ExpectedTables(ids[:19], 3), 3).Extra != 0 {
		t.Fatal("recomputed tables should be correct")
	}
}
