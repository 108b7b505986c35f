package overlay

import (
	"slices"
	"testing"
)

// TestRememberingCountsFailedNeighboursNotBack checks the signal the peer
// runtime uses to decide whether registering again is worth it: a failed
// neighbour counts while it is not a neighbour again, stops counting once
// it is back, and every failure adds to Stats.Remembered.
func TestRememberingCountsFailedNeighboursNotBack(t *testing.T) {
	p, ids := build(t, 2, "a", "b", "c", "d", "e")
	quiet := ids[2]
	cut := true
	p.drop = func(m Message) bool { return cut && (m.From == quiet || m.To == quiet) }
	var holders []*Node
	for _, id := range ids {
		if n := p.nodes[id]; id != quiet && slices.Contains(n.Neighbors(), quiet) {
			holders = append(holders, n)
		}
	}
	if len(holders) == 0 {
		t.Fatal("nobody holds the node to cut off")
	}
	for _, n := range holders {
		if n.Remembering() != 0 || n.Stats().Remembered != 0 {
			t.Fatalf("remembering %d (total %d) before any failure", n.Remembering(), n.Stats().Remembered)
		}
	}
	p.tick(DefaultConfig().MaxFailureTicks + 1) // failed by every holder, however its timeout adapted
	for _, n := range holders {
		if n.Remembering() != 1 || n.Stats().Remembered != 1 {
			t.Fatalf("after the failure: remembering %d (total %d), want 1 (1)", n.Remembering(), n.Stats().Remembered)
		}
	}
	cut = false // the node was alive all along: its merge probes bring it back
	for range 20 {
		p.tick(DefaultConfig().MergeTicks)
		back := 0
		for _, n := range holders {
			if n.Remembering() == 0 {
				back++
			}
		}
		if back == len(holders) {
			p.requireCorrect()
			return
		}
	}
	t.Fatal("the healed node still counts as remembered and not back")
}
