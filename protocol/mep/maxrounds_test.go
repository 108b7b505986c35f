package mep

import (
	"errors"
	"testing"
)

// A peer with MaxRounds 3 runs three rounds and is Done; its last model
// still reaches a neighbour that trains on, and it fetches none of that
// neighbour's later models (it declines their offers). Without the field
// a FedLay task's max_rounds ran 68 rounds on real peers (issue #23).
func TestMaxRoundsEndsTraining(t *testing.T) {
	h := newHarness(t, 1, 5, 5)
	h.peers[0].cfg.MaxRounds = 3
	h.link(1, 2)
	h.run(100)
	a, b := h.peers[0], h.peers[1]
	if n := len(h.rounds[a.cfg.ID]); n != 3 || !a.Done() {
		t.Fatalf("peer 1: %d rounds, done %v; want 3, true", n, a.Done())
	}
	if n := len(h.rounds[b.cfg.ID]); n < 15 || b.Done() {
		t.Fatalf("peer 2 (no bound): %d rounds, done %v", n, b.Done())
	}
	final, fp := a.Model()
	if final != 3 || b.nbrs[a.cfg.ID].modelFP != fp {
		t.Errorf("peer 2 holds peer 1's model %x, want its final version %d (%x)", b.nbrs[a.cfg.ID].modelFP, final, fp)
	}
	last := h.roundAt[a.cfg.ID][2]
	for i, m := range h.sent {
		if m.From == a.cfg.ID && m.Type == MsgNeed && h.sentAt[i] > last {
			t.Fatalf("done peer asked for a model at tick %d", h.sentAt[i])
		}
	}
	if s := a.Stats(); s.OffersDeclined == 0 || s.Rounds != 3 {
		t.Errorf("peer 1 stats %+v: want offers declined, 3 rounds", s)
	}
	c := testConfig(9, 5)
	c.MaxRounds = -1
	if _, err := New(c); !errors.Is(err, ErrConfig) {
		t.Errorf("MaxRounds -1: %v", err)
	}
}
