package aggregate

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// driftReputation is the default reputation with the drift test on.
func driftReputation(t *testing.T) *Reputation {
	t.Helper()
	cfg := DefaultReputationConfig()
	cfg.Drift = DefaultDriftConfig()
	r, err := NewReputation(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// driftRound is a round's report: neighbour k (peer k+2) at cosine cos[k].
func driftRound(cos ...float64) Report {
	var rep Report
	for k, c := range cos {
		rep.Pulls = append(rep.Pulls, Pull{Index: k, From: id(byte(k + 2)), Cosine: c})
	}
	return rep
}

// TestDriftCharges: among neighbours whose cosines with our step wander
// around 0 (spread about 0.05), one that sits at -0.29 every round (just
// inside the direction check: never refused, never charged by it) is
// charged by the drift test from its 3rd round, about 3 spreads a round over
// the allowance, and reported; one that sits a little below the others
// (-0.05) and one that falls to -0.35 once are never charged.
func TestDriftCharges(t *testing.T) {
	r := driftReputation(t)
	others := make([]Contribution, 6)
	for k := range others {
		others[k] = contrib(byte(k+2), 1, 0)
	}
	wander := [][]float64{{0.05, -0.02, 0.03}, {-0.04, 0.06, 0.0}, {0.02, 0.01, -0.06}, {-0.01, 0.04, 0.05}}
	first := map[int]int{} // neighbour -> first round charged
	for round := 1; round <= 12; round++ {
		w := wander[round%len(wander)]
		once := w[2]
		if round == 5 {
			once = -0.35
		}
		rep := driftRound(-0.29, -0.05, w[0], w[1], once, 0.02)
		for _, k := range r.DriftCharged(rep, len(others)) {
			if first[k] == 0 {
				first[k] = round
			}
		}
		r.Observe(others, rep)
	}
	if first[0] != 3 || len(first) != 1 {
		t.Fatalf("first rounds charged %v, want only neighbour 0, from round 3", first)
	}
	if !r.ShouldDrop(id(2)) || r.Score(id(3)) != 1 || r.Score(id(6)) != 1 {
		t.Fatalf("scores: at -0.29 %v (want reported), at -0.05 %v, the one-off %v (want 1)", r.Score(id(2)), r.Score(id(3)), r.Score(id(6)))
	}
	r.Forget(id(2))
	if got := r.DriftCharged(driftRound(-0.1, -0.05, 0, 0.01, 0.02, 0.03), 6); len(got) != 0 { // charged, with its sum kept
		t.Fatalf("forgotten peer charged at once: %v", got)
	}
}

// TestDriftRelative: the measure is the neighbourhood's, not a fixed
// cosine: where honest neighbours' cosines spread widely (strongly
// non-IID data), one that is often far below the median but not every
// round is not charged, while the same one in a neighbourhood that
// agrees closely is.
func TestDriftRelative(t *testing.T) {
	others := make([]Contribution, 4)
	for k := range others {
		others[k] = contrib(byte(k+2), 1, 0)
	}
	wide, tight := driftReputation(t), driftReputation(t)
	low := []float64{-0.3, -0.05, -0.25, 0.1, -0.3, 0.0, -0.2, -0.1}
	for round := range 16 {
		c := low[round%len(low)]
		wide.Observe(others, driftRound(c, 0.3, -0.2, 0.15))
		tight.Observe(others, driftRound(c, 0.02, -0.01, 0.0))
	}
	if wide.Score(id(2)) != 1 {
		t.Errorf("wide neighbourhood: the wandering neighbour lost score (%v)", wide.Score(id(2)))
	}
	if !tight.ShouldDrop(id(2)) {
		t.Errorf("tight neighbourhood: the neighbour mostly far below not reported (%v)", tight.Score(id(2)))
	}
}

// TestDriftNeedsWitnesses: like the severities, the drift sums count
// only in rounds of at least MinWitnesses checked neighbours, and Limit 0
// turns the test off.
func TestDriftNeedsWitnesses(t *testing.T) {
	few := []Contribution{contrib(2, 1, 0), contrib(3, 1, 0), contrib(4, 1, 0)}
	four := append(slices.Clone(few), contrib(5, 1, 0))
	r := driftReputation(t)
	r0, _ := NewReputation(DefaultReputationConfig()) // the default: off
	for range 20 {
		r.Observe(few, driftRound(-1, 0, 0.01))
		r0.Observe(four, driftRound(-1, 0, 0.01, 0.02))
	}
	if r.Score(id(2)) != 1 || r0.Score(id(2)) != 1 || r.DriftCharged(driftRound(-1, 0, 0.01), 3) != nil || r0.DriftCharged(driftRound(-1, 0, 0.01, 0.02), 4) != nil {
		t.Fatalf("scores %v (3 witnesses) and %v (test off), want 1", r.Score(id(2)), r0.Score(id(2)))
	}
	if got := r.DriftCharged(driftRound(-1, 0, 0.01, 0.02), 4); !slices.Equal(got, []int{0}) {
		t.Fatalf("cosine -1 among 4 witnesses: charged %v, want [0]", got)
	}
	if DefaultReputationConfig().Drift.Limit != 0 {
		t.Fatal("the drift test is on by default; docs/RESULTS.md measured it cutting honest links")
	}
	for _, c := range []DriftConfig{{Limit: -1, SpreadFloor: 1}, {Limit: math.Inf(1), SpreadFloor: 1}, {Allow: math.NaN()}, {Limit: 1}, {Async: true, SpreadFloor: 1}} {
		cfg := DefaultReputationConfig()
		cfg.Drift = c
		if _, err := NewReputation(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("drift %+v: %v, want ErrConfig", c, err)
		}
	}
}

// TestClipReportsPulls: the clipping rule reports every checked
// neighbour's cosine with our step, refused by the direction check or
// not, and none for a model beyond the radius (left out for its
// distance, it is not measured).
func TestClipReportsPulls(t *testing.T) {
	self := contrib(1, 10, 1, 0)
	self.Origin = []float32{0, 0}
	others := []Contribution{contrib(2, 10, 1, 0.5), contrib(3, 10, 1.2, -0.4), contrib(4, 10, 0.6, 0.3), contrib(5, 10, 0.2, 0),
		contrib(6, 10, -0.1, 0.1), contrib(7, 10, 40, 40)}
	r := Robust{Bounds: DefaultBounds(), Clip: DefaultClipConfig(), Inner: Mean{}}
	rep, err := r.Aggregate(self, others, make([]float32, 2))
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]Pull{}
	for _, p := range rep.Pulls {
		got[p.Index] = p
	}
	if _, ok := got[5]; ok || len(got) != 5 {
		t.Fatalf("pulls %+v: want indices 0-4, not the far model", rep.Pulls)
	}
	for k := range 5 {
		p := got[k]
		if want := cosine(self.Origin, self.Params, others[k].Params); math.Abs(p.Cosine-want) > 1e-9 || p.From != others[k].From {
			t.Errorf("pull %d: %+v, want cosine %v", k, p, want)
		}
	}
	refused := false
	for _, o := range rep.Outliers {
		refused = refused || (o.Index == 4 && o.Action == OutlierLeftOut)
	}
	if got[4].Cosine > -0.3 || !refused {
		t.Errorf("the model pointing back (cosine %v) not left out by the direction check: %+v", got[4].Cosine, rep.Outliers)
	}
}
