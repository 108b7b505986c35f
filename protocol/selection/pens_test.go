package selection

import (
	"bytes"
	"errors"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Hand-made history: 4 samples of 4 peers with 2 picks each. |~C| = 8,
// |C_sampled| = 6 (peers 1..6), T = 8/6 = 1.33: peers picked twice or
// more are kept (1: 3 times, 2: 2 times); 3, 4 and 5 (once) and 6
// (never) are dropped.
func TestSelectNeighboursHandMade(t *testing.T) {
	selected := [][]ident.Peer{{id(1), id(2)}, {id(1), id(3)}, {id(2), id(4)}, {id(1), id(5)}}
	sampled := []ident.Peer{id(1), id(2), id(3), id(4), id(5), id(6)}
	got, err := SelectNeighbours(selected, sampled)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != id(1) || got[1] != id(2) {
		t.Fatalf("kept %v, want [1 2]", got)
	}
	// Exactly T is not enough: 2 picks over 2 peers, T = 1, counts 1 and 1.
	got, _ = SelectNeighbours([][]ident.Peer{{id(1)}, {id(2)}}, []ident.Peer{id(1), id(2)})
	if len(got) != 0 {
		t.Fatalf("kept %v at exactly T", got)
	}
	if _, err := SelectNeighbours([][]ident.Peer{{id(9)}}, sampled); !errors.Is(err, ErrCandidates) {
		t.Fatalf("unsampled pick: %v", err)
	}
}

// PENS driven through its Policy interface builds the same history and,
// in step 2, draws only from the kept peers.
func TestPENSTwoSteps(t *testing.T) {
	p := policy(t, KindPENS, func(c *Config) {
		c.Selected, c.Sampled, c.Samplings, c.Step1Rounds, c.Step2Selected = 2, 4, 2, 2, 1
	})
	pens := p.(*PENS)
	if pl := p.Plan(2); pl != (Plan{Samples: 2, Size: 4, Evaluate: true}) {
		t.Fatalf("step-1 plan %+v", pl)
	}
	if pl := p.Plan(3); pl != (Plan{}) {
		t.Fatalf("step-2 plan %+v", pl)
	}
	// Low loss = similar data. Peers 1 and 2 are our cluster (loss ~0.1);
	// 3..6 are not (loss ~2), except that 3 and 5 each get lucky once.
	round1 := [][]Candidate{
		{ev(1, 0.1, 0), ev(2, 0.2, 0), ev(3, 2.0, 0), ev(4, 2.1, 0)}, // picks 1, 2
		{ev(1, 0.1, 0), ev(3, 0.3, 0), ev(5, 2.0, 0), ev(6, 2.2, 0)}, // picks 1, 3
	}
	round2 := [][]Candidate{
		{ev(2, 0.1, 0), ev(4, 0.2, 0), ev(5, 2.5, 0), {ID: id(7)}},   // picks 2, 4; 7 refused
		{ev(1, 0.1, 0), ev(5, 0.4, 0), ev(6, 2.0, 0), ev(3, 2.1, 0)}, // picks 1, 5
	}
	sel, err := p.Select(1, round1, rng(1))
	if err != nil || !bytes.Equal(idsOf(sel), []byte{1, 3}) {
		t.Fatalf("round 1 averages with %v (%v), want the last sample's picks [1 3]", idsOf(sel), err)
	}
	if _, err := p.Select(2, round2, rng(1)); err != nil {
		t.Fatal(err)
	}
	h := pens.History()
	if h[id(1)] != 3 || h[id(2)] != 2 || h[id(3)] != 1 || h[id(6)] != 0 || h[id(7)] != 0 {
		t.Fatalf("history %v", h)
	}
	if e := pens.Expected(); e != 8.0/6 { // peer 7 refused: not sampled
		t.Fatalf("T = %v, want 8/6", e)
	}
	r := rng(2)
	seen := map[byte]int{}
	for range 200 {
		sel, err := p.Select(3, nil, r)
		if err != nil || len(sel) != 1 {
			t.Fatal(sel, err)
		}
		seen[sel[0].ID[0]]++
	}
	if len(seen) != 2 || seen[1] == 0 || seen[2] == 0 {
		t.Fatalf("step 2 selected %v, want only 1 and 2", seen)
	}
	if _, err := p.Select(2, round2, rng(1)); !errors.Is(err, ErrRound) {
		t.Fatalf("step-1 round after step 2: %v", err)
	}
	ns := pens.Neighbours()
	s, err := PrecisionRecall(self, ns, map[ident.Peer]int{self: 0, id(1): 0, id(2): 0, id(3): 1, id(4): 1, id(5): 1, id(6): 1})
	if err != nil || s.Precision != 1 || s.Recall != 1 {
		t.Fatalf("score %+v %v", s, err)
	}
}

// When every count equals T the kept set falls back to the most picked
// peers rather than to nobody.
func TestPENSFallback(t *testing.T) {
	p := policy(t, KindPENS, func(c *Config) {
		c.Selected, c.Sampled, c.Samplings, c.Step1Rounds = 2, 2, 1, 1
	})
	if _, err := p.Select(1, [][]Candidate{{ev(1, 1, 0), ev(2, 1, 0)}}, rng(1)); err != nil {
		t.Fatal(err)
	}
	ns := p.(*PENS).Neighbours()
	if len(ns) != 2 {
		t.Fatalf("fallback kept %v, want both", ns)
	}
}
