package aggregate

import (
	"errors"
	"testing"
)

func TestReputation(t *testing.T) {
	r, err := NewReputation(DefaultReputationConfig())
	if err != nil {
		t.Fatal(err)
	}
	others := []Contribution{contrib(2, 1, 0), contrib(3, 1, 0), contrib(4, 1, 0), contrib(5, 1, 0)}
	// Peer 2 far out every round (severity 1), peer 3 mildly clipped
	// (severity .4, within tolerance), peer 4 refused once.
	far := Report{Outliers: []Outlier{{Index: 0, From: id(2), Severity: 1}, {Index: 1, From: id(3), Severity: 0.4}}}
	refused := far
	refused.Refused = []Refusal{{Index: 2, From: id(4), Err: ErrNonFinite}}
	r.Observe(others, refused)
	r.Observe(others, far)
	if r.ShouldDrop(id(2)) {
		t.Fatalf("peer 2 reported after 2 rounds (score %v)", r.Score(id(2)))
	}
	r.Observe(others, far)
	if !r.ShouldDrop(id(2)) || r.Score(id(2)) > 0.1+1e-9 {
		t.Fatalf("peer 2 after 3 far rounds: score %v", r.Score(id(2)))
	}
	if r.Score(id(3)) != 1 || r.ShouldDrop(id(3)) {
		t.Fatalf("peer 3 (within tolerance) score %v", r.Score(id(3)))
	}
	// Refused once (-.3), then 2 clean rounds (+.02 each).
	if got := r.Score(id(4)); got < 0.74-1e-9 || got > 0.74+1e-9 {
		t.Fatalf("peer 4 score %v, want .74", got)
	}
	// Severity .75 is halfway above tolerance .5: cost .15.
	r.Observe(others, Report{Outliers: []Outlier{{Index: 2, From: id(4), Severity: 0.75}}})
	if got := r.Score(id(4)); got < 0.59-1e-9 || got > 0.59+1e-9 {
		t.Fatalf("peer 4 score %v, want .59", got)
	}
	// Slow recovery: 4 clean rounds (the last one included) lift peer 2
	// from .1 to .18: still reported.
	for range 3 {
		r.Observe(others, Report{})
	}
	if !r.ShouldDrop(id(2)) {
		t.Fatalf("peer 2 recovered too fast: %v", r.Score(id(2)))
	}
	r.Forget(id(2))
	if r.Score(id(2)) != 1 || r.Score(id(7)) != 1 {
		t.Fatal("forgotten or unknown peer not at full score")
	}
	if _, err := NewReputation(ReputationConfig{Tolerance: 1}); !errors.Is(err, ErrConfig) {
		t.Fatalf("tolerance 1: %v", err)
	}
}

func TestReputationFromRobustRound(t *testing.T) {
	// End to end: a neighbour sending a x100 model is clipped every round
	// by clipped-mean and reported after 3 rounds; the honest are not.
	r, _ := NewReputation(DefaultReputationConfig())
	a, _ := New("clipped-mean")
	self := contrib(1, 1, 1, 1)
	others := []Contribution{contrib(2, 1, 1.1, 1), contrib(3, 1, 0.9, 1), contrib(4, 1, 1, 1.1), contrib(9, 1, 100, 100)}
	out := make([]float32, 2)
	for range 3 {
		rep, err := a.Aggregate(self, others, out)
		if err != nil {
			t.Fatal(err)
		}
		r.Observe(others, rep)
	}
	if !r.ShouldDrop(id(9)) {
		t.Fatalf("x100 peer score %v", r.Score(id(9)))
	}
	for _, p := range []byte{2, 3, 4} {
		if r.ShouldDrop(id(p)) || r.Score(id(p)) != 1 {
			t.Errorf("honest peer %d score %v", p, r.Score(id(p)))
		}
	}
}

// TestReputationNeedsWitnesses: in a round with fewer than MinWitnesses
// neighbours' models an outlier loses nothing (the reference distance is
// too few models to judge by), a refused model still costs its penalty.
func TestReputationNeedsWitnesses(t *testing.T) {
	r, err := NewReputation(DefaultReputationConfig())
	if err != nil {
		t.Fatal(err)
	}
	three := []Contribution{contrib(2, 1, 0), contrib(3, 1, 0), contrib(4, 1, 0)}
	far := Report{Outliers: []Outlier{{Index: 0, From: id(2), Severity: 1}}, Refused: []Refusal{{Index: 1, From: id(3), Err: ErrNonFinite}}}
	for range 5 {
		r.Observe(three, far)
	}
	if r.Score(id(2)) != 1 || r.ShouldDrop(id(2)) {
		t.Fatalf("an outlier among 3 models lost score: %v", r.Score(id(2)))
	}
	if !r.ShouldDrop(id(3)) {
		t.Fatalf("a model refused 5 times among 3 is not reported: %v", r.Score(id(3)))
	}
	four := append(three, contrib(5, 1, 0))
	r.Observe(four, far)
	if got := r.Score(id(2)); got > 0.7+1e-9 {
		t.Fatalf("an outlier among 4 models: score %v, want .7", got)
	}
	bad := DefaultReputationConfig()
	bad.MinWitnesses = -1
	if _, err := NewReputation(bad); err == nil {
		t.Fatal("MinWitnesses -1 accepted")
	}
}
