package aggregate

import (
	"errors"
	"math"
	"testing"
)

// TestCutScale: self at 0, neighbours at 1, -2, 2.5 and 4.9 (distances
// as positions). The reference is the 2nd closest of 4, 2; tau 3; the
// radius 5, so all four are used. Cut to tau (CutScale 0, the default)
// the one at 4.9 pulls 3 and the mean of the five is (1 - 2 + 2.5 + 3)/5
// = 0.9. Cut at the reference (CutScale 1) the ones at 2.5 and 4.9 pull
// 2 each: (1 - 2 + 2 + 2)/5 = 0.6. The judgement is tau's either way:
// only the one at 4.9 is reported, Cut, severity 1 - 3/4.9.
func TestCutScale(t *testing.T) {
	self := contrib(1, 1, 0)
	others := []Contribution{contrib(2, 1, 1), contrib(3, 1, -2), contrib(4, 1, 2.5), contrib(5, 1, 4.9)}
	for _, tc := range []struct {
		cutScale float64
		mean     float64
	}{{0, 0.9}, {1, 0.6}, {1.5, 0.9}} {
		clip := toyClip()
		clip.CutScale = tc.cutScale
		out := make([]float32, 1)
		rep, err := Robust{Bounds: DefaultBounds(), Clip: clip, Inner: Mean{}}.Aggregate(self, others, out)
		if err != nil {
			t.Fatal(err)
		}
		near(t, out, tc.mean)
		if rep.Used != 5 || len(rep.Outliers) != 1 || rep.Outliers[0].Index != 3 || rep.Outliers[0].Action != OutlierCut ||
			math.Abs(rep.Outliers[0].Severity-(1-3/4.9)) > 1e-6 {
			t.Errorf("cut scale %v: report %+v: want all used, the one at 4.9 cut at severity %.4f", tc.cutScale, rep, 1-3/4.9)
		}
	}
}

// TestCutScaleValidate: the cut is never looser than tau, and not
// negative or NaN.
func TestCutScaleValidate(t *testing.T) {
	for _, bad := range []float64{-1, 1.6, math.NaN(), math.Inf(1)} {
		clip := DefaultClipConfig()
		clip.CutScale = bad
		if err := clip.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("cut scale %v: %v, want ErrConfig", bad, err)
		}
	}
}

// TestAnchoredByName: "anchored-X" is X in Robust with the step floor
// and the cut at the reference, unless the options set their own.
func TestAnchoredByName(t *testing.T) {
	a, err := New("anchored-fedlay")
	if err != nil {
		t.Fatal(err)
	}
	r, ok := a.(Robust)
	if !ok || r.Clip.StepFloor != anchoredStepFloor || r.Clip.CutScale != anchoredCutScale {
		t.Fatalf("anchored-fedlay = %#v", a)
	}
	if _, ok := r.Inner.(*FedLay); !ok {
		if _, ok := r.Inner.(FedLay); !ok {
			t.Fatalf("anchored-fedlay inner = %T", r.Inner)
		}
	}
	o := DefaultOptions()
	o.Clip.StepFloor, o.Clip.CutScale = 2, 1.25
	a, err = NewWith("anchored-mean", o)
	if err != nil {
		t.Fatal(err)
	}
	if r := a.(Robust); r.Clip.StepFloor != 2 || r.Clip.CutScale != 1.25 {
		t.Fatalf("anchored-mean with options = %#v", a)
	}
	if p, err := ParseRule("anchored-fedlay"); err != nil || !p.Clipped || p.Base != "fedlay" || !p.Robust() {
		t.Fatalf("ParseRule(anchored-fedlay) = %+v, %v", p, err)
	}
	if _, err := New("anchored-median"); !errors.Is(err, ErrUnknown) {
		t.Fatalf("anchored-median: %v, want ErrUnknown", err)
	}
}
