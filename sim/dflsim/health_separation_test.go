package dflsim

import (
	"testing"

	"github.com/peerlearn/peerlearn/engine/health"
	"github.com/peerlearn/peerlearn/types/ident"
)

func TestSeparation(t *testing.T) {
	id := func(i int) ident.Peer { return PeerID(1, i) }
	res := func(i, correct int) health.Result {
		return health.Result{Peer: id(i), Correct: []int{correct}, Total: []int{10}}
	}
	hostile := map[ident.Peer]bool{id(0): true, id(1): true}
	// Attackers 0 (6 of 10) and 1 (9 of 10) against honest 2 (7), 3 (9)
	// and 4 (8); 5's result does not score and is skipped.
	nbrs := []health.Result{res(0, 6), res(1, 9), res(2, 7), res(3, 9), res(4, 8),
		{Peer: id(5), Correct: []int{3}, Total: []int{2}}}
	got := separation(nbrs, hostile)
	// 0 is below all three honest (3); 1 is below none, ties 3 (0.5).
	if want := (Separation{Lower: 3.5, Pairs: 6}); got != want {
		t.Fatalf("separation = %+v, want %+v", got, want)
	}
	if share, ok := got.Share(); !ok || share != 3.5/6 {
		t.Fatalf("share %v, %v", share, ok)
	}
	sum := got.Add(separation(nbrs[2:5], hostile)) // no attacker: no pairs
	if sum != got {
		t.Fatalf("adding a round without attackers changed the tally: %+v", sum)
	}
	if _, ok := (Separation{}).Share(); ok {
		t.Fatal("a share without pairs")
	}
}
