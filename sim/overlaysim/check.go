package overlaysim

import (
	"cmp"
	"slices"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/sim/overlaynet"
	"github.com/peerlearn/peerlearn/types/ident"
)

// checker measures a cluster's correctness like Cluster.Correctness
// (overlay.Check), but caches the coordinates and the correct tables
// between membership changes: a large or long run checks thousands of
// times, and overlay.Check hashes every coordinate and sorts every ring
// each time.
type checker struct {
	c      *overlaynet.Cluster
	coords map[ident.Peer][]overlay.Coord
	live   []ident.Peer                 // the membership want was computed for
	want   map[ident.Peer]overlay.Table // correct tables for live
}

func newChecker(c *overlaynet.Cluster) *checker {
	return &checker{c: c, coords: map[ident.Peer][]overlay.Coord{}}
}

// check returns the correctness of the live nodes' tables.
func (k *checker) check() overlay.Correctness {
	live := k.c.Live()
	if !slices.Equal(live, k.live) {
		k.live, k.want = live, k.expected(live)
	}
	r := overlay.Correctness{Nodes: len(live)}
	for _, id := range live {
		got, want := k.c.Node(id).Table(), k.want[id]
		for i, w := range want {
			if got[i].Pred != w.Pred {
				r.WrongSlots++
			}
			if got[i].Succ != w.Succ {
				r.WrongSlots++
			}
		}
		wn := neighbors(want)
		r.Expected += len(wn)
		for _, g := range neighbors(got) {
			if slices.Contains(wn, g) {
				r.Correct++
			} else {
				r.Extra++
			}
		}
	}
	return r
}

// neighbors returns the distinct non-zero IDs of t (at most 2L: a linear
// scan beats sorting).
func neighbors(t overlay.Table) []ident.Peer {
	out := make([]ident.Peer, 0, 2*len(t))
	for _, a := range t {
		for _, id := range [2]ident.Peer{a.Pred, a.Succ} {
			if id != (ident.Peer{}) && !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

// expected is overlay.ExpectedTables with cached coordinates.
func (k *checker) expected(ids []ident.Peer) map[ident.Peer]overlay.Table {
	L := k.c.Spaces()
	out := make(map[ident.Peer]overlay.Table, len(ids))
	for _, id := range ids {
		out[id] = make(overlay.Table, L)
		if _, ok := k.coords[id]; !ok {
			cs := make([]overlay.Coord, L)
			for i := range cs {
				cs[i] = overlay.Coordinate(id, i)
			}
			k.coords[id] = cs
		}
	}
	if len(ids) < 2 {
		return out
	}
	type pos struct {
		c  overlay.Coord
		id ident.Peer
	}
	ring := make([]pos, len(ids))
	for i := range L {
		for j, id := range ids {
			ring[j] = pos{k.coords[id][i], id}
		}
		slices.SortFunc(ring, func(a, b pos) int {
			if c := cmp.Compare(a.c, b.c); c != 0 {
				return c
			}
			return slices.Compare(a.id[:], b.id[:])
		})
		for j, p := range ring {
			out[p.id][i] = overlay.Adjacent{
				Pred: ring[(j+len(ring)-1)%len(ring)].id,
				Succ: ring[(j+1)%len(ring)].id,
			}
		}
	}
	return out
}
