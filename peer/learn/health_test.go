package learn

import (
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"

	"github.com/peerlearn/peerlearn/engine/health"
)

// healthOn switches the neighbourhood check on for every peer.
func healthOn(_ int, c *Config) {
	c.Aggregator = aggregate.SafeDefault
	c.Health = HealthConfig{On: true, Check: health.DefaultConfig().ForClasses(taskClasses)}
}

// Peer 2 of ringPlus(10) hears peers 1, 3, 5 and 9; three of them (1, 3,
// 9) send a model that answers one class for everything, with maximal claims, so plain FedLay
// hands its neighbourhood to them. With the check on, peer 2 finds most
// of its neighbours disagreeing with its data, is Captured after
// Patience rounds, from then on aggregates only with the one it trusts
// (peer 5), and asks for a new placement at once and then at most every
// Cooldown alarming rounds. Without attack the same check leaves it
// healthy, and with the check off Health says so.
func TestHealthCapturedVictimKeepsLearning(t *testing.T) {
	tk := newTask(t, 10, 120, 4)
	// A liar's model answers class 0 for everything: its output bias
	// (the last taskClasses parameters) favours class 0 by far.
	one := func(p []float32) []float32 {
		out := append([]float32(nil), p...)
		out[len(out)-taskClasses] += 50
		return out
	}
	liars := map[int]func([]float32) []float32{1: one, 3: one, 9: one}
	const rounds, victim = 20, 2
	accOf := func(p *Peer) float64 {
		ev, err := NewEvaluator(tk.arch)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ev.Evaluate(p.Published(), tk.test.X, tk.test.Y)
		if err != nil {
			return 0
		}
		return m.Accuracy
	}

	off := newPeers(t, tk, func(_ int, c *Config) { c.Aggregator = aggregate.SafeDefault })
	byzantineRounds(t, tk, off, liars, rounds)
	if _, ok := off[victim].Health(); ok {
		t.Errorf("Health reports a check that is off")
	}
	on := newPeers(t, tk, healthOn)
	byzantineRounds(t, tk, on, liars, rounds)
	calm := newPeers(t, tk, healthOn)
	byzantineRounds(t, tk, calm, nil, rounds)

	s, ok := on[victim].Health()
	t.Logf("victim: accuracy check off %.3f, on %.3f, no attack %.3f; status %+v", accOf(off[victim]), accOf(on[victim]), accOf(calm[victim]), s)
	if !ok || s.State != health.Captured || s.Captures < 1 {
		t.Fatalf("victim status %+v (ok %v): want captured", s, ok)
	}
	if s.Disagree != len(liars) || s.Neighbours != 4 {
		t.Errorf("victim's last round: %d of %d neighbours disagree, want the %d liars of 4", s.Disagree, s.Neighbours, len(liars))
	}
	cd := health.DefaultConfig().Cooldown
	if most := 1 + (s.Alarming-health.DefaultConfig().Patience)/cd; s.Replacements < 1 || s.Replacements > most {
		t.Errorf("victim asked for %d new placements in %d alarming rounds; want 1..%d (one at capture, then every %d)", s.Replacements, s.Alarming, most, cd)
	}
	if !on[victim].TakeReplace() || on[victim].TakeReplace() {
		t.Errorf("TakeReplace: want one pending request, then none")
	}
	// Captured, the victim aggregates only with its honest neighbour:
	// it learns what plain FedLay under the same attack does not.
	if a, b := accOf(on[victim]), accOf(off[victim]); a < 0.7 || a <= b {
		t.Errorf("victim accuracy with the check %.3f, without %.3f: want the check to keep it learning (>= 0.7)", a, b)
	}
	if cs, _ := calm[victim].Health(); cs.Captures != 0 || cs.Replacements != 0 {
		t.Errorf("without attack the victim's check says %+v: want no capture", cs)
	}
}
