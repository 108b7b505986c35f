package aggregate

import (
	"errors"
	"math"
	"testing"
)

// TestMedianFloorCollapse: self at 0, three near-copies of it (0.01,
// -0.01, 0.02) and honest neighbours at 1, -1.1, 1.2 and -3 (distances
// as positions; no Origin, so no direction check; no step floor and no
// median cap).
//
// Without the floor the reference is the 3rd closest of 7, a copy at
// 0.02: the radius is 0.05 and every honest neighbour is left out (the
// reference collapse of issue #26). The copies' own reference, their 2nd
// closest of 3, is 0.01: tau 0.015, the copy at 0.02 is cut to it, and
// the mean of self and the copies is (0 + 0.01 - 0.01 + 0.015)/4.
//
// With MedianFloor 0.5 the reference is at least half the median of all
// seven distances (the 4th, 1): 0.5, radius 1.25, so only the honest one
// at 3 is left out. The reference of the six kept is still floored at
// 0.5 (their own 3rd closest is a copy), tau 0.75: the three at 1, 1.1
// and 1.2 are cut to 0.75 and the mean is (0.02 + 0.75)/7 = 0.11.
func TestMedianFloorCollapse(t *testing.T) {
	self := contrib(1, 1, 0)
	others := []Contribution{contrib(2, 1, 0.01), contrib(3, 1, -0.01), contrib(4, 1, 0.02),
		contrib(5, 1, 1), contrib(6, 1, -1.1), contrib(7, 1, 1.2), contrib(8, 1, -3)}
	for _, tc := range []struct {
		floor    float64
		mean     float64
		used     int
		leftOut  map[int]float64 // index -> severity
		cutSever map[int]float64
	}{
		{0, 0.015 / 4, 4, map[int]float64{3: 1 - 0.015/1, 4: 1 - 0.015/1.1, 5: 1 - 0.015/1.2, 6: 1 - 0.015/3},
			map[int]float64{2: 1 - 0.015/0.02}},
		{0.5, 0.77 / 7, 7, map[int]float64{6: 1 - 0.75/3},
			map[int]float64{3: 1 - 0.75/1, 4: 1 - 0.75/1.1, 5: 1 - 0.75/1.2}},
	} {
		clip := toyClip()
		clip.MedianFloor, clip.MedianCap, clip.StepFloor = tc.floor, 0, 0
		out := make([]float32, 1)
		rep, err := Robust{Bounds: DefaultBounds(), Clip: clip, Inner: Mean{}}.Aggregate(self, others, out)
		if err != nil {
			t.Fatal(err)
		}
		near(t, out, tc.mean)
		if rep.Used != tc.used || len(rep.Outliers) != len(tc.leftOut)+len(tc.cutSever) {
			t.Fatalf("median floor %v: report %+v: want %d used, %d outliers", tc.floor, rep, tc.used, len(tc.leftOut)+len(tc.cutSever))
		}
		for _, o := range rep.Outliers {
			want, left := tc.leftOut[o.Index]
			if !left {
				want = tc.cutSever[o.Index]
			}
			wantAction := OutlierCut
			if left {
				wantAction = OutlierLeftOut
			}
			if o.Action != wantAction || math.Abs(o.Severity-want) > 1e-6 {
				t.Errorf("median floor %v: outlier %+v (%v), want %v severity %.4f", tc.floor, o, o.Action, wantAction, want)
			}
		}
	}
}

// TestMedianFloorValidate: the floor is in [0, 1]: above the median it
// would make every reference the median's multiple, whatever the
// closest third says.
func TestMedianFloorValidate(t *testing.T) {
	for _, bad := range []float64{-0.1, 1.01, math.NaN(), math.Inf(1)} {
		clip := DefaultClipConfig()
		clip.MedianFloor = bad
		if err := clip.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("median floor %v: %v, want ErrConfig", bad, err)
		}
	}
}

// TestSpreadByName: "spread-X" is X in Robust with the median floor and
// the step floor, unless the options set their own.
func TestSpreadByName(t *testing.T) {
	a, err := New("spread-fedlay")
	if err != nil {
		t.Fatal(err)
	}
	r, ok := a.(Robust)
	if !ok || r.Clip.MedianFloor != spreadMedianFloor || r.Clip.StepFloor != spreadStepFloor || r.Clip.MedianCap != spreadMedianCap || r.Clip.CutScale != 0 {
		t.Fatalf("spread-fedlay = %#v", a)
	}
	if _, ok := r.Inner.(*FedLay); !ok {
		if _, ok := r.Inner.(FedLay); !ok {
			t.Fatalf("spread-fedlay inner = %T", r.Inner)
		}
	}
	o := DefaultOptions()
	o.Clip.MedianFloor, o.Clip.StepFloor = 0.25, 2
	a, err = NewWith("spread-mean", o)
	if err != nil {
		t.Fatal(err)
	}
	if r := a.(Robust); r.Clip.MedianFloor != 0.25 || r.Clip.StepFloor != 2 {
		t.Fatalf("spread-mean with options = %#v", a)
	}
	if p, err := ParseRule("spread-fedlay"); err != nil || !p.Clipped || p.Base != "fedlay" || !p.Robust() {
		t.Fatalf("ParseRule(spread-fedlay) = %+v, %v", p, err)
	}
	if _, err := New("spread-median"); !errors.Is(err, ErrUnknown) {
		t.Fatalf("spread-median: %v, want ErrUnknown", err)
	}
}

// TestMedianCap: TestMedianFloorCollapse's neighbourhood with MedianCap
// set (direction and behind checks off: only the distances count). With
// our Origin at -1 (own step 1) and MedianCap 0.4 the median floor uses
// min(1, 0.4) of the median: floor 0.2, radius 0.5, every honest
// neighbour left out, tau 0.3, the copies used whole: mean (0 + 0.01 -
// 0.01 + 0.02)/4. Without an Origin there is no step to cap by and no
// median floor: the collapsed 0.015/4 of the rule without it.
func TestMedianCap(t *testing.T) {
	others := []Contribution{contrib(2, 1, 0.01), contrib(3, 1, -0.01), contrib(4, 1, 0.02),
		contrib(5, 1, 1), contrib(6, 1, -1.1), contrib(7, 1, 1.2), contrib(8, 1, -3)}
	clip := DefaultClipConfig()
	clip.Direction, clip.Behind, clip.MedianFloor, clip.MedianCap, clip.StepFloor = false, 0, 0.5, 0.4, 0
	clip.CopyBelow = 0 // the floors alone: copies left out would end this collapse (TestCopiesLeftOut)
	for _, tc := range []struct {
		origin []float32
		mean   float64
	}{{[]float32{-1}, 0.02 / 4}, {nil, 0.015 / 4}} {
		self := contrib(1, 1, 0)
		self.Origin = tc.origin
		out := make([]float32, 1)
		rep, err := Robust{Bounds: DefaultBounds(), Clip: clip, Inner: Mean{}}.Aggregate(self, others, out)
		if err != nil {
			t.Fatal(err)
		}
		near(t, out, tc.mean)
		if rep.Used != 4 {
			t.Fatalf("origin %v: report %+v: want self and the 3 copies used", tc.origin, rep)
		}
	}
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
		c := DefaultClipConfig()
		c.MedianCap = bad
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("median cap %v: %v, want ErrConfig", bad, err)
		}
	}
}
