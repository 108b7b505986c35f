package learn

import (
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

// TestBehindOffWhenAsync: the behind check runs in synchronous rounds
// only; a peer that goes asynchronous aggregates without it (its older
// neighbours' models sit behind ours for their age alone).
func TestBehindOffWhenAsync(t *testing.T) {
	tk := newTask(t, 2, 20, 1)
	behind := func(p *Peer) float64 {
		r, ok := p.agg.(aggregate.Robust)
		if !ok {
			t.Fatalf("aggregator %T, want aggregate.Robust", p.agg)
		}
		return r.Clip.Behind
	}
	peers := newPeers(t, tk, func(_ int, c *Config) { c.Aggregator = aggregate.SafeDefault })
	if b := behind(peers[0]); b != aggregate.DefaultClipConfig().Behind || b == 0 {
		t.Fatalf("new peer: Behind %v, want the default", b)
	}
	if err := peers[0].setMode(modeSync); err != nil || behind(peers[0]) == 0 {
		t.Fatalf("synchronous: %v, Behind %v", err, behind(peers[0]))
	}
	if err := peers[1].setMode(modeAsync); err != nil || behind(peers[1]) != 0 {
		t.Fatalf("asynchronous: %v, Behind %v, want 0", err, behind(peers[1]))
	}
	if aggregate.DecHWOf(peers[1].agg) != peers[1].dechw {
		t.Fatal("the rebuilt aggregator's DecHW state is not the peer's")
	}
}

// TestDriftOffWhenAsync: the reputation's drift test
// (aggregate.DriftConfig) runs in synchronous rounds only, like the
// behind check: in asynchronous exchange a slow honest neighbour's older
// model pulls back against our step for its age alone, every round.
func TestDriftOffWhenAsync(t *testing.T) {
	tk := newTask(t, 2, 20, 1)
	peers := newPeers(t, tk, func(_ int, c *Config) {
		c.Aggregator, c.Reputation.Drift = aggregate.SafeDefault, aggregate.DefaultDriftConfig()
	})
	// One neighbour far below four that agree: over the limit at once.
	rep := aggregate.Report{Pulls: []aggregate.Pull{{Index: 0, Cosine: -1}}}
	for k := 1; k <= 4; k++ {
		rep.Pulls = append(rep.Pulls, aggregate.Pull{Index: k, From: peerID(k)})
	}
	if err := peers[0].setMode(modeSync); err != nil || len(peers[0].DriftCharged(rep, 5)) != 1 {
		t.Fatalf("synchronous: %v, drift test charges %v, want [0]", err, peers[0].DriftCharged(rep, 5))
	}
	if err := peers[1].setMode(modeAsync); err != nil || peers[1].DriftCharged(rep, 5) != nil {
		t.Fatalf("asynchronous: %v, drift test still on", err)
	}
	// Drift.Async keeps it (the lab's asynchronous "+suspend" measures it).
	kept := newPeers(t, tk, func(_ int, c *Config) {
		c.Aggregator, c.Reputation.Drift = aggregate.SafeDefault, aggregate.DefaultDriftConfig()
		c.Reputation.Drift.Async = true
	})
	if err := kept[0].setMode(modeAsync); err != nil || len(kept[0].DriftCharged(rep, 5)) != 1 {
		t.Fatalf("asynchronous with Drift.Async: %v, drift test charges %v, want [0]", err, kept[0].DriftCharged(rep, 5))
	}
}
