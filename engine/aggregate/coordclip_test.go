package aggregate

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// sparseAttack: us at 0; four honest neighbours move coordinates 0 and 1
// but agree with us at coordinate 2 (a trigger's weight, which honest
// data does not move); a fifth moves coordinate 2 alone, 0.15 out (inside the L2 radius).
func sparseAttack() (Contribution, []Contribution) {
	return contrib(1, 1, 0, 0, 0), []Contribution{contrib(2, 1, 0.1, 0.05, 0), contrib(3, 1, -0.1, 0, 0),
		contrib(4, 1, 0.1, -0.05, 0), contrib(5, 1, -0.1, 0.02, 0), contrib(6, 1, 0, 0, 0.15)}
}

// TestCoordClipCutsSparseChange: at coordinate 2 the moves are 0, 0, 0,
// 0, 0.15, median 0, so the radius is 0 and the attacker's value is cut to
// ours; at coordinate 0 every honest move is 0.1 (median 0.1, radius 0.2)
// and nothing is cut; at coordinate 1 the moves are 0.05, 0, 0.05, 0.02,
// 0 (median 0.02, radius 0.04): the two 0.05 moves are cut to 0.04. The
// callers' vectors are untouched.
func TestCoordClipCutsSparseChange(t *testing.T) {
	self, others := sparseAttack()
	kept := slices.Clone(others)
	ClipConfig{CoordRadius: 2}.coordClip(self, kept)
	want := [][]float32{{0.1, 0.04, 0}, {-0.1, 0, 0}, {0.1, -0.04, 0}, {-0.1, 0.02, 0}, {0, 0, 0}}
	for k := range kept {
		for i, w := range want[k] {
			if math.Abs(float64(kept[k].Params[i]-w)) > 1e-6 {
				t.Errorf("neighbour %d: %v, want %v", k, kept[k].Params, want[k])
				break
			}
		}
	}
	if others[4].Params[2] != 0.15 || others[0].Params[1] != 0.05 {
		t.Fatalf("inputs changed: %v %v", others[0].Params, others[4].Params)
	}
	// Fewer than 3 neighbours: a median of one or two could be the
	// attacker's own, so nothing is cut.
	few := slices.Clone(others[3:])
	ClipConfig{CoordRadius: 2}.coordClip(self, few)
	if few[1].Params[2] != 0.15 {
		t.Fatalf("two neighbours: %v, want untouched", few[1].Params)
	}
}

// TestCoordClippedRuleStopsSparseChange: through New, the L2 clip alone
// (ablate-coord-mean: the default before the coordinate radius) lets
// part of the sparse change into our aggregate (it keeps a sparse
// difference's direction whole), while the default clipped-mean and the
// lab's coordclipped-mean let none of it in, and all average the honest
// coordinate 0 the same.
func TestCoordClippedRuleStopsSparseChange(t *testing.T) {
	out := make([]float32, 3)
	for _, tc := range []struct {
		name  string
		leaks bool
	}{{"ablate-coord-mean", true}, {"clipped-mean", false}, {"coordclipped-mean", false}} {
		self, others := sparseAttack()
		a, err := New(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Aggregate(self, others, out); err != nil {
			t.Fatal(err)
		}
		if leaked := out[2] > 1e-6; leaked != tc.leaks || math.Abs(float64(out[0])) > 1e-6 {
			t.Errorf("%s: aggregate %v: want leak at coordinate 2 %v, coordinate 0 at 0", tc.name, out, tc.leaks)
		}
	}
	if r, err := ParseRule("coordclipped-fedlay"); err != nil || !r.Clipped || r.Base != "fedlay" || !IsRobustName(r.Name) {
		t.Fatalf("ParseRule: %+v %v", r, err)
	}
}

// TestCoordRadiusValidate refuses a negative, NaN or infinite radius.
func TestCoordRadiusValidate(t *testing.T) {
	for _, r := range []float64{-1, math.NaN(), math.Inf(1)} {
		c := DefaultClipConfig()
		c.CoordRadius = r
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("radius %v: %v, want ErrConfig", r, err)
		}
	}
}
