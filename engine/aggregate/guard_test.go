package aggregate

import (
	"math"
	"slices"
	"testing"
)

// TestStepFloorResistsCollapse: our step is (1, 0) from origin (0, 0);
// four honest neighbours sit 2 and 2.5 from us, across our step; three
// liars send near-copies of our model (0.001 away). Of 7 neighbours the
// reference is the 3rd closest, a liar's 0.001, so without the floor the
// radius is 0.0025 and every honest neighbour is left out (and charged:
// severity 1 - 0.0015/2 > 0.99). With winsorised-fedlay's floor, 3
// times our step of 1, the reference is 3, tau 4.5: all used whole, none
// reported.
func TestStepFloorResistsCollapse(t *testing.T) {
	self := withOrigin(contrib(1, 1, 1, 0), 0, 0)
	others := []Contribution{contrib(2, 1, 1, 2), contrib(3, 1, 1, -2), contrib(4, 1, 1, 2.5), contrib(5, 1, 1, -2.5),
		contrib(6, 1, 1, 0.001), contrib(7, 1, 1, -0.001), contrib(8, 1, 1.001, 0)}
	out := make([]float32, 2)
	for _, tc := range []struct {
		floor   float64
		leftOut int
	}{{0, 4}, {winsorisedStepFloor, 0}} {
		clip := DefaultClipConfig()
		clip.StepFloor, clip.MedianFloor = tc.floor, 0 // the step floor alone
		clip.CopyBelow = 0                             // copies left out would end this collapse too (TestCopiesLeftOut)
		rep, err := Robust{Bounds: DefaultBounds(), Clip: clip, Inner: Mean{}}.Aggregate(self, others, out)
		if err != nil {
			t.Fatal(err)
		}
		left := 0
		for _, o := range rep.Outliers {
			if o.Action == OutlierLeftOut {
				left++
				if o.Index > 3 || o.Severity < 0.99 {
					t.Errorf("floor %v: outlier %+v, want an honest one at severity > 0.99", tc.floor, o)
				}
			}
		}
		if left != tc.leftOut || (tc.leftOut == 0 && (len(rep.Outliers) != 0 || rep.Used != 8)) {
			t.Errorf("floor %v: report %+v: want %d honest neighbours left out", tc.floor, rep, tc.leftOut)
		}
	}
}

// TestWinsoriseSparse: four honest neighbours within 0.15 of us at 0, a
// fifth sends a change at one coordinate only, 0.3 out. Clipping (tau
// 1.5 x 0.1414, the 2nd closest of 5) cuts it to 0.2121 and uses it;
// winsorising then clamps every coordinate into the 2nd smallest to 2nd
// largest of the six values: the spike to the largest honest value 0.1,
// and the honest extremes to their runners-up (coordinate 0: -0.1 to 0;
// 1: -0.1 to 0; 2: 0.1 to 0). The mean of the six is (0.25, 0.2, -0.2)/6
// (without winsorising the spike's coordinate is 0.262/6). The callers'
// vectors are untouched.
func TestWinsoriseSparse(t *testing.T) {
	self := contrib(1, 1, 0, 0, 0)
	others := []Contribution{contrib(2, 1, 0.1, 0.1, 0), contrib(3, 1, -0.1, 0, 0.1), contrib(4, 1, 0, -0.1, -0.1),
		contrib(5, 1, 0.05, 0.1, -0.1), contrib(6, 1, 0.3, 0, 0)}
	before := slices.Clone(others[1].Params)
	a, err := newToy("winsorised-mean")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, 3)
	rep, err := a.Aggregate(self, others, out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, 0.25/6, 0.2/6, -0.2/6)
	if !slices.Equal(others[1].Params, before) || others[4].Params[0] != 0.3 {
		t.Fatalf("inputs changed: %v %v", others[1].Params, others[4].Params)
	}
	if rep.Used != 6 {
		t.Fatalf("report %+v: want all used", rep)
	}
	plain, err := newToy("clipped-mean")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Aggregate(self, others, out); err != nil {
		t.Fatal(err)
	}
	if want := (0.05 + 1.5*math.Sqrt(0.02)) / 6; math.Abs(float64(out[0])-want) > 1e-5 {
		t.Fatalf("clipped-mean coordinate 0 = %v, want %v", out[0], want)
	}
}
