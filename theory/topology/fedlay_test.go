package topology

import (
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
)

func randomIDs(n int, rng *rand.Rand) []ident.Peer {
	ids := make([]ident.Peer, n)
	for i := range ids {
		for j := range ids[i] {
			ids[i][j] = byte(rng.Uint32())
		}
	}
	return ids
}

// adjacentOnRing finds u's successor and predecessor in space s by brute
// force: smallest clockwise and counter-clockwise arc from u.
func adjacentOnRing(ids []ident.Peer, u, s int) (succ, pred int) {
	xu := overlay.Coordinate(ids[u], s)
	bestS, bestP := ^uint64(0), ^uint64(0)
	for v := range ids {
		if v == u {
			continue
		}
		xv := overlay.Coordinate(ids[v], s)
		if cw := uint64(xv - xu); cw < bestS {
			bestS, succ = cw, v
		}
		if ccw := uint64(xu - xv); ccw < bestP {
			bestP, pred = ccw, v
		}
	}
	return succ, pred
}

func TestFedLayMatchesDefinition1(t *testing.T) {
	const n, L = 40, 3
	ids := randomIDs(n, seeded(11))
	g, err := FedLay(ids, L)
	if err != nil {
		t.Fatal(err)
	}
	for u := range n {
		want := map[int]bool{}
		for s := range L {
			succ, pred := adjacentOnRing(ids, u, s)
			want[succ], want[pred] = true, true
		}
		if got, w := g.Neighbors(u), slices.Sorted(maps.Keys(want)); !slices.Equal(got, w) {
			t.Errorf("node %d: neighbours %v, want ring-adjacent %v", u, got, w)
		}
	}
}

func TestFedLayOneSpaceIsARing(t *testing.T) {
	g, err := FedLay(randomIDs(25, seeded(12)), 1)
	if err != nil {
		t.Fatal(err)
	}
	for u, d := range g.Degrees() {
		if d != 2 {
			t.Fatalf("L = 1: degree(%d) = %d, want 2", u, d)
		}
	}
	if !g.Connected() || g.M() != 25 {
		t.Errorf("L = 1: m = %d, connected = %v; want a 25-cycle", g.M(), g.Connected())
	}
}

func TestFedLayDegreeNear2L(t *testing.T) {
	const n, L = 300, 5
	g, err := FedLay(randomIDs(n, seeded(13)), L)
	if err != nil {
		t.Fatal(err)
	}
	deg := g.Degrees()
	if slices.Max(deg) > 2*L {
		t.Errorf("max degree %d > 2L = %d", slices.Max(deg), 2*L)
	}
	// A merge needs the same pair adjacent in two spaces: about
	// C(L,2)·4/(n-1) ≈ 0.13 per node, so the mean stays near 2L.
	if mean := 2 * float64(g.M()) / n; mean < 2*L-0.4 {
		t.Errorf("mean degree %.3f, want near %d", mean, 2*L)
	}
}

func TestFedLaySmallAndBad(t *testing.T) {
	ids := randomIDs(3, seeded(14))
	if g, err := FedLay(ids[:1], 4); err != nil || g.M() != 0 {
		t.Errorf("one peer: %v edges, %v", g.M(), err)
	}
	if g, err := FedLay(ids[:2], 4); err != nil || g.M() != 1 {
		t.Errorf("two peers: %v edges, %v; want 1 merged edge", g.M(), err)
	}
	if g, err := FedLay(ids, 4); err != nil || g.M() != 3 {
		t.Errorf("three peers: %v edges, %v; want a triangle", g.M(), err)
	}
	if _, err := FedLay(ids, 0); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("L = 0 error = %v", err)
	}
	if _, err := FedLay(nil, 2); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("no peers error = %v", err)
	}
	if _, err := FedLay([]ident.Peer{ids[0], ids[1], ids[0]}, 2); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("duplicate IDs error = %v", err)
	}
}
