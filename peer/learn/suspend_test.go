package learn

import (
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

// TestSuspendedLeftOut: with the drift test in its Suspend form, a
// neighbour whose sum is over the limit when a round begins is marked
// in the round's copy of the neighbours (never in the caller's), left
// out by the robust rule, counted in Metrics.Suspended and not charged.
func TestSuspendedLeftOut(t *testing.T) {
	tk := newTask(t, 6, 20, 1)
	drift := aggregate.DefaultDriftConfig()
	drift.Suspend = true
	peers := newPeers(t, tk, func(_ int, c *Config) {
		c.Aggregator, c.Reputation.Drift = aggregate.SafeDefault, drift
	})
	var nb []aggregate.Contribution
	for i, p := range peers {
		w, err := p.SyncWork(nil)
		if err != nil {
			t.Fatal(err)
		}
		w.Run()
		if err := p.Finish(w); err != nil {
			t.Fatal(err)
		}
		if c, ok := p.Contribution(); ok && i > 0 {
			nb = append(nb, c)
		}
	}
	p := peers[0]
	// Neighbour peerID(1) far below four that agree, twice: over the
	// limit (TestDriftOffWhenAsync's round).
	rep := aggregate.Report{}
	for k, c := range nb {
		cos := 0.01 * float64(k)
		if k == 0 {
			cos = -1
		}
		rep.Pulls = append(rep.Pulls, aggregate.Pull{Index: k, From: c.From, Cosine: cos})
	}
	for range 2 {
		p.reputation.Observe(nb, rep)
	}
	if !p.reputation.Suspended(peerID(1)) || p.reputation.Score(peerID(1)) != 1 {
		t.Fatalf("neighbour 1: suspended %v, score %v; want suspended, not charged", p.reputation.Suspended(peerID(1)), p.reputation.Score(peerID(1)))
	}
	w, err := p.SyncWork(nb)
	if err != nil {
		t.Fatal(err)
	}
	for k, c := range w.others {
		if c.Suspended != (k == 0) || nb[k].Suspended {
			t.Fatalf("neighbour %d: marked %v in the round, %v in the caller's slice; want only neighbour 0, only in the round", k, c.Suspended, nb[k].Suspended)
		}
	}
	w.Run()
	if err := p.Finish(w); err != nil {
		t.Fatal(err)
	}
	if m := p.Metrics(); m.Suspended != 1 {
		t.Fatalf("Metrics.Suspended %d, want 1", m.Suspended)
	}
	if w.report.Used != len(nb) { // self and the four not suspended
		t.Fatalf("used %d models, want %d (the suspended one left out)", w.report.Used, len(nb))
	}
}
