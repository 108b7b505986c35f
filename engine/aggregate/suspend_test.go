package aggregate

import (
	"math"
	"slices"
	"testing"
)

// TestDriftSuspends: in the Suspend form the neighbour at -0.29 every
// round is found over the limit from its 2nd round (a spread of about
// 0.05 among these four: 6 spreads a round), but is never charged: its score stays 1 and it is
// suspended from the next round on. Once it points with the others its
// sum falls and the suspension ends, after a number of rounds the cap
// bounds; the neighbours near the median are never suspended.
func TestDriftSuspends(t *testing.T) {
	cfg := DefaultReputationConfig()
	cfg.Drift = DefaultDriftConfig()
	cfg.Drift.Suspend = true
	r, err := NewReputation(cfg)
	if err != nil {
		t.Fatal(err)
	}
	others := make([]Contribution, 5)
	for k := range others {
		others[k] = contrib(byte(k+2), 1, 0)
	}
	wander := [][]float64{{0.05, -0.02, 0.03}, {-0.04, 0.06, 0.0}, {0.02, 0.01, -0.06}, {-0.01, 0.04, 0.05}}
	var over []int // rounds the drifting neighbour was reported over the limit
	for round := 1; round <= 6; round++ {
		w := wander[round%len(wander)]
		if got := r.Observe(others, driftRound(-0.29, w[0], w[1], w[2], 0.02)); slices.Contains(got, 0) {
			over = append(over, round)
		}
	}
	if !slices.Equal(over, []int{2, 3, 4, 5, 6}) {
		t.Fatalf("over the limit in rounds %v, want 2-6", over)
	}
	if !r.Suspended(id(2)) || r.Score(id(2)) != 1 || r.ShouldDrop(id(2)) {
		t.Fatalf("drifting neighbour: suspended %v, score %v (want suspended, score 1, not dropped)", r.Suspended(id(2)), r.Score(id(2)))
	}
	for k := 3; k <= 6; k++ {
		if r.Suspended(id(byte(k))) {
			t.Fatalf("neighbour %d near the median suspended", k)
		}
	}
	back := 0 // rounds at the median until it is heard again
	for r.Suspended(id(2)) && back < 50 {
		back++
		r.Observe(others, driftRound(0.01, 0.05, -0.02, 0.03, 0.02))
	}
	// From the cap (2 Limits) down to the Limit at 0.5 spreads a round
	// (cosine 0.01 against the median 0.02, spread at its floor 0.02,
	// minus Allow 1): 12 rounds.
	if back != 12 {
		t.Fatalf("suspension ended after %d rounds at the median, want 12 (from the cap)", back)
	}
	charged := cfg
	charged.Drift.Suspend = false
	rc, err := NewReputation(charged)
	if err != nil {
		t.Fatal(err)
	}
	for range 6 {
		rc.Observe(others, driftRound(-0.29, 0.05, -0.02, 0.03, 0.02))
	}
	if rc.Suspended(id(2)) || !rc.ShouldDrop(id(2)) {
		t.Fatalf("charging form: suspended %v, dropped %v (want charged and reported, never suspended)", rc.Suspended(id(2)), rc.ShouldDrop(id(2)))
	}
}

// TestRobustLeavesSuspendedOut: a suspended neighbour's model is
// measured (its Pull is reported) but takes no part in the average, and
// is not reported as an outlier (a suspension is not a charge).
func TestRobustLeavesSuspendedOut(t *testing.T) {
	r, self, others, _, got, rep := suspendedRound(t, toyClip())
	all := make([]float32, 2)
	if _, err := r.Aggregate(self, others, all); err != nil {
		t.Fatal(err)
	}
	without := make([]float32, 2)
	if _, err := r.Aggregate(self, slices.Delete(slices.Clone(others), 2, 3), without); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(got, all) || math.Abs(float64(got[0]-without[0])) > 1e-6 || math.Abs(float64(got[1]-without[1])) > 1e-6 {
		t.Fatalf("with neighbour 2 suspended %v; all %v, without it %v: want the latter", got, all, without)
	}
	if rep.Used != 4 { // self and the three others
		t.Fatalf("used %d, want 4", rep.Used)
	}
	measured := slices.ContainsFunc(rep.Pulls, func(p Pull) bool { return p.Index == 2 })
	charged := slices.ContainsFunc(rep.Outliers, func(o Outlier) bool { return o.Index == 2 })
	if !measured || charged {
		t.Fatalf("suspended model: measured %v (want true), reported as outlier %v (want false): %+v", measured, charged, rep)
	}
}

// TestRobustKeepsSuspendedShare: with SuspendedKeepShare a suspended
// neighbour keeps its weight, carrying our own model: the average is the
// one with its model replaced by ours, not the one without it (whose
// weight went to the rest), and the caller's contribution is not changed.
func TestRobustKeepsSuspendedShare(t *testing.T) {
	clip := toyClip()
	clip.SuspendedKeepShare = true
	r, self, others, susp, got, rep := suspendedRound(t, clip)
	if !slices.Equal(susp[2].Params, []float32{1.1, 0.3}) { // contrib(4, 10, 1.1, 0.3)
		t.Fatalf("the caller's contribution changed: %v", susp[2].Params)
	}
	ours := slices.Clone(others)
	ours[2].Params = slices.Clone(self.Params)
	want := make([]float32, 2)
	if _, err := r.Aggregate(self, ours, want); err != nil {
		t.Fatal(err)
	}
	without := make([]float32, 2)
	if _, err := r.Aggregate(self, slices.Delete(slices.Clone(others), 2, 3), without); err != nil {
		t.Fatal(err)
	}
	if math.Abs(float64(got[0]-want[0])) > 1e-6 || math.Abs(float64(got[1]-want[1])) > 1e-6 || slices.Equal(got, without) {
		t.Fatalf("with neighbour 2 suspended %v; with our model in its place %v, without it %v: want the former", got, want, without)
	}
	if rep.Used != 5 {
		t.Fatalf("used %d, want 5 (its weight kept)", rep.Used)
	}
	charged := slices.ContainsFunc(rep.Outliers, func(o Outlier) bool { return o.Index == 2 })
	if !slices.ContainsFunc(rep.Pulls, func(p Pull) bool { return p.Index == 2 }) || charged {
		t.Fatalf("suspended model: want measured and not reported as an outlier: %+v", rep)
	}
}

// suspendedRound aggregates a toy round under clip with neighbour 2 of
// four suspended: the rule, our contribution, the neighbours as given,
// the ones aggregated (neighbour 2 marked), the result and its report.
func suspendedRound(t *testing.T, clip ClipConfig) (r Robust, self Contribution, others, susp []Contribution, got []float32, rep Report) {
	t.Helper()
	self = contrib(1, 10, 1, 0)
	self.Origin = []float32{0, 0}
	others = []Contribution{contrib(2, 10, 1, 0.5), contrib(3, 10, 1.2, -0.4), contrib(4, 10, 1.1, 0.3), contrib(5, 10, 0.9, 0.1)}
	r = Robust{Bounds: DefaultBounds(), Clip: clip, Inner: Mean{}}
	susp = slices.Clone(others)
	susp[2].Suspended = true
	got = make([]float32, 2)
	rep, err := r.Aggregate(self, susp, got)
	if err != nil {
		t.Fatal(err)
	}
	return r, self, others, susp, got, rep
}
