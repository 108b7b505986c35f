package aggregate

import (
	"math"
	"testing"
)

// TestBehindLeave: TestClipBehind's neighbourhood with BehindLeave on
// (the lab's behindout-X). f, 0.2736 reference distances behind
// (reach/Behind 0.684, above behindLeaveAt 0.5), is left out: the
// aggregate is the mean of self and the other four, (0.24, 0), and f's
// severity is halved to 0.342, under reputation's tolerance, so it is
// never charged. d (0.114) stays in and is reported as before, halved.
// Moved to 2 x its distance behind (-1.2, 2: reach/Behind 1.37, severity
// 0.684), f is left out and charged as the check alone charged it at half
// that distance.
func TestBehindLeave(t *testing.T) {
	clip := toyClip()
	clip.BehindLeave = true
	self := withOrigin(contrib(1, 1, 1, 0), 0, 0)
	others := []Contribution{contrib(2, 1, 0.2, 2), contrib(3, 1, 0, 2), contrib(4, 1, 0.1, -2),
		contrib(5, 1, -0.1, -2), contrib(6, 1, -0.6, 2)}
	out := make([]float32, 2)
	rule := Robust{Bounds: DefaultBounds(), Clip: clip, Inner: Mean{}}
	rep, err := rule.Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, 0.24, 0)
	ref := math.Sqrt(0.81 + 4)
	want := map[int]struct {
		sev    float64
		action OutlierAction
	}{3: {0.1 / ref / 0.4 / 2, OutlierFlagged}, 4: {0.6 / ref / 0.4 / 2, OutlierLeftOut}}
	if rep.Used != 5 || len(rep.Outliers) != 2 {
		t.Fatalf("report %+v: want 5 used (f left out), d and f reported", rep)
	}
	for _, o := range rep.Outliers {
		w, ok := want[o.Index]
		if !ok || math.Abs(o.Severity-w.sev) > 1e-6 || o.Action != w.action {
			t.Fatalf("outlier %+v, want %+v", o, w)
		}
	}
	r, err := NewReputation(DefaultReputationConfig())
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		r.Observe(others, rep)
	}
	if r.Score(id(6)) != 1 {
		t.Fatalf("f charged while left out at half the check's severity: score %v", r.Score(id(6)))
	}

	others[4] = contrib(6, 1, -1.2, 2)
	rep, err = rule.Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, 0.24, 0)
	var f Outlier
	for _, o := range rep.Outliers {
		if o.Index == 4 {
			f = o
		}
	}
	if f.Action != OutlierLeftOut || math.Abs(f.Severity-1.2/ref/0.4/2) > 1e-6 || f.Severity <= DefaultReputationConfig().Tolerance {
		t.Fatalf("f twice as far behind: %+v, want left out and charged (severity %.3f)", f, 1.2/ref/0.4/2)
	}
}

// TestBehindoutName: "behindout-X" is clipped-X with BehindLeave on, for
// the weighted rules only, robust, and not in Names (the lab's).
func TestBehindoutName(t *testing.T) {
	a, err := New("behindout-fedlay")
	if err != nil {
		t.Fatal(err)
	}
	r, ok := a.(Robust)
	want := DefaultClipConfig()
	want.BehindLeave = true
	if !ok || r.Clip != want {
		t.Fatalf("behindout-fedlay: %T %+v, want Robust with %+v", a, a, want)
	}
	if rule, err := ParseRule("behindout-fedlay"); err != nil || rule.Base != "fedlay" || !rule.Clipped || !IsRobustName("behindout-fedlay") {
		t.Fatalf("ParseRule: %+v %v", rule, err)
	}
	for _, bad := range []string{"behindout-median", "behindout-", "behindout-fedavg"} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
	for _, n := range Names() {
		if n == "behindout-fedlay" {
			t.Fatal("behindout-fedlay in Names")
		}
	}
}
