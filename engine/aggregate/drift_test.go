package aggregate

import (
	"errors"
	"math"
	"testing"
)

// TestDriftCharges: a neighbour that sits just inside the direction
// check (cosine -0.29: never refused) every round is charged by the
// drift test from its 5th round (0.14 a round over the allowance 0.15,
// limit 0.6) and then reported; one just under the behind check's
// tolerance (reach 0.19) from its 7th; an honest-looking neighbour
// whose cosine wanders around 0, with a round at -0.35 now and then, and
// whose reach is 0.3 once, is never charged.
func TestDriftCharges(t *testing.T) {
	r, err := NewReputation(DefaultReputationConfig())
	if err != nil {
		t.Fatal(err)
	}
	others := []Contribution{contrib(2, 1, 0), contrib(3, 1, 0), contrib(4, 1, 0), contrib(5, 1, 0)}
	honestCos := []float64{0.05, -0.1, -0.35, 0.02, -0.05, 0.1, -0.12, -0.35, 0, 0.03}
	charged := map[byte]int{} // first round each was charged
	for round := 1; round <= 10; round++ {
		pulls := []Pull{
			{Index: 0, From: id(2), Cosine: -0.29, HasCosine: true},
			{Index: 1, From: id(3), Behind: 0.19, HasBehind: true, Cosine: 0, HasCosine: true},
			{Index: 2, From: id(4), Cosine: honestCos[round-1], HasCosine: true, Behind: map[bool]float64{true: 0.3}[round == 4], HasBehind: true},
		}
		for _, p := range pulls {
			if r.DriftCharges(p, len(others)) && charged[p.From[0]] == 0 {
				charged[p.From[0]] = round
			}
		}
		before := r.Score(id(2))
		r.Observe(others, Report{Pulls: pulls})
		if round < 5 && r.Score(id(2)) < before {
			t.Fatalf("round %d: peer 2 charged early (sum not over 0.6)", round)
		}
	}
	if charged[2] != 5 || charged[3] != 7 || charged[4] != 0 {
		t.Fatalf("first charged rounds: %v, want peer 2 at 5, peer 3 at 7, peer 4 never", charged)
	}
	if !r.ShouldDrop(id(2)) || r.Score(id(4)) != 1 {
		t.Fatalf("after 10 rounds: peer 2 score %v (want reported), peer 4 %v (want 1)", r.Score(id(2)), r.Score(id(4)))
	}
	r.Forget(id(2))
	if r.DriftCharges(Pull{Index: 0, From: id(2), Cosine: -0.29, HasCosine: true}, 4) {
		t.Fatal("forgotten peer still has its drift sum")
	}
}

// TestDriftNeedsWitnesses: like the severities, the drift sums count
// only in rounds of at least MinWitnesses neighbours, and Limit 0 turns
// the test off.
func TestDriftNeedsWitnesses(t *testing.T) {
	few := []Contribution{contrib(2, 1, 0), contrib(3, 1, 0)}
	pull := Pull{Index: 0, From: id(2), Cosine: -1, HasCosine: true}
	r, _ := NewReputation(DefaultReputationConfig())
	off := DefaultReputationConfig()
	off.Drift = DriftConfig{}
	r0, _ := NewReputation(off)
	for range 20 {
		r.Observe(few, Report{Pulls: []Pull{pull}})
		r0.Observe(append(few, contrib(4, 1, 0), contrib(5, 1, 0)), Report{Pulls: []Pull{pull}})
	}
	if r.Score(id(2)) != 1 || r0.Score(id(2)) != 1 || r.DriftCharges(pull, 2) || r0.DriftCharges(pull, 4) {
		t.Fatalf("scores %v (2 witnesses) and %v (test off), want 1", r.Score(id(2)), r0.Score(id(2)))
	}
	if !r.DriftCharges(pull, 4) {
		t.Fatal("cosine -1 among 4 witnesses not charged")
	}
	for _, c := range []DriftConfig{{Limit: -1}, {Limit: math.Inf(1)}, {Cosine: math.NaN()}} {
		cfg := DefaultReputationConfig()
		cfg.Drift = c
		if _, err := NewReputation(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("drift %+v: %v, want ErrConfig", c, err)
		}
	}
}

// TestClipReportsPulls: the clipping rule reports every checked
// neighbour's cosine and reach behind, refused by the direction check or
// not, and none for a model beyond the radius.
func TestClipReportsPulls(t *testing.T) {
	self := contrib(1, 10, 1, 0)
	self.Origin = []float32{0, 0}
	others := []Contribution{contrib(2, 10, 1, 0.5), contrib(3, 10, 1.2, -0.4), contrib(4, 10, 0.6, 0.3), contrib(5, 10, 0.2, 0), contrib(6, 10, 40, 40)}
	r := Robust{Bounds: DefaultBounds(), Clip: DefaultClipConfig(), Inner: Mean{}}
	rep, err := r.Aggregate(self, others, make([]float32, 2))
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]Pull{}
	for _, p := range rep.Pulls {
		got[p.Index] = p
	}
	if _, ok := got[4]; ok || len(got) != 4 {
		t.Fatalf("pulls %+v: want indices 0-3, not the far model", rep.Pulls)
	}
	for k := range 4 {
		p := got[k]
		want := cosine(self.Origin, self.Params, others[k].Params)
		if !p.HasCosine || !p.HasBehind || math.Abs(p.Cosine-want) > 1e-9 || p.Behind < 0 || p.From != others[k].From {
			t.Errorf("pull %d: %+v, want cosine %v and a reach", k, p, want)
		}
	}
	if !(got[3].Behind > got[0].Behind) {
		t.Errorf("the model at 0.2 along our step (reach %v) not behind the one at 1 (%v)", got[3].Behind, got[0].Behind)
	}
}
