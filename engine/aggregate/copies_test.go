package aggregate

import (
	"slices"
	"testing"
)

// TestCopiesLeftOut: our step is (1, 0) from origin (0, 0); three honest
// neighbours lie one step away, at (1, 1), (2, 0) and (1, -1).
//   - One copy at (1, 0.1), 0.1 steps away: without CopyBelow it is used
//     and dilutes the mean to (1.2, 0.02); with CopyBelow 0.25 it is left
//     out, not charged (Severity 0), and the mean is (1.25, 0).
//   - Three copies: without CopyBelow (and without floors) they are the
//     closest third, the reference distance falls to 0.1 and the honest
//     neighbours, beyond 2.5 times it, are left out (reference
//     collapse): the mean of self and the copies, (1.025, 0). With
//     CopyBelow the reference is taken without them: the honest ones are
//     used and the copies left out, (1.25, 0).
func TestCopiesLeftOut(t *testing.T) {
	self := withOrigin(contrib(1, 1, 1, 0), 0, 0)
	honest := []Contribution{contrib(2, 1, 1, 1), contrib(3, 1, 2, 0), contrib(4, 1, 1, -1)}
	one := append(slices.Clone(honest), contrib(5, 1, 1, 0.1))
	three := append(slices.Clone(one), contrib(6, 1, 1, -0.1), contrib(7, 1, 1.1, 0))
	for _, tc := range []struct {
		name   string
		others []Contribution
		below  float64
		want   []float64
		left   []int // left out, ascending
	}{
		{"one copy, used", one, 0, []float64{1.2, 0.02}, nil},
		{"one copy, left out", one, 0.25, []float64{1.25, 0}, []int{3}},
		{"three copies, collapse", three, 0, []float64{1.025, 0}, []int{0, 1, 2}},
		{"three copies, left out", three, 0.25, []float64{1.25, 0}, []int{3, 4, 5}},
	} {
		clip := ClipConfig{Quantile: 0.34, Scale: 1.5, Reject: 5.0 / 3.0, CopyBelow: tc.below}
		out := make([]float32, 2)
		rep, err := Robust{Bounds: DefaultBounds(), Clip: clip, Inner: Mean{}}.Aggregate(self, tc.others, out)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(tc.name, func(t *testing.T) { near(t, out, tc.want...) })
		var left []int
		for _, o := range rep.Outliers {
			if o.Action != OutlierLeftOut {
				continue
			}
			left = append(left, o.Index)
			if tc.below > 0 && o.Severity != 0 {
				t.Errorf("%s: copy %d charged %v, want 0", tc.name, o.Index, o.Severity)
			}
		}
		if !slices.Equal(left, tc.left) {
			t.Errorf("%s: left out %v, want %v", tc.name, left, tc.left)
		}
	}
}

// TestCopyRadius: CopyBelow times our own step, 0 without an Origin or
// CopyBelow; "copy25-fedlay" sets 0.25 on the default.
func TestCopyRadius(t *testing.T) {
	self := withOrigin(contrib(1, 1, 3, 4), 0, 0) // step 5
	c := ClipConfig{CopyBelow: 0.25}
	if r := c.CopyRadius(self); r != 1.25 {
		t.Errorf("radius %v, want 1.25", r)
	}
	if r := c.CopyRadius(contrib(1, 1, 3, 4)); r != 0 {
		t.Errorf("radius without an Origin %v, want 0", r)
	}
	if r := (ClipConfig{}).CopyRadius(self); r != 0 {
		t.Errorf("radius without CopyBelow %v, want 0", r)
	}
	a, err := New("copy25-fedlay")
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := a.(Robust); !ok || r.Clip.CopyBelow != 0.25 {
		t.Errorf("copy25-fedlay: %+v, want CopyBelow 0.25", a)
	}
	if _, err := New("copy100-fedlay"); err == nil {
		t.Error("copy100-fedlay: built, want no rule (CopyBelow < 1)")
	}
}
