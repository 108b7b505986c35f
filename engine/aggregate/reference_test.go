package aggregate

import (
	"math"
	"testing"
)

// TestClipReferenceWithoutFar: self at 0, honest neighbours at 1, -2 and
// 3.5, liars at 100, -200 and 300 (distances as positions). The radius
// comes from all six: the 3rd closest of 6 (ceil(0.34 x 6) = 3) is 3.5,
// radius 2.5 x 3.5 = 8.75, so the three liars are left out. The
// reference is then taken again over the three kept: the 2nd closest of
// 3 is 2, tau 3, and the neighbour at 3.5 is cut to 3 (severity
// 1 - 3/3.5 = 0.1429). The mean of self and the kept is (0 + 1 - 2 + 3)/4
// = 0.5: the same as with the liars silent (three honest neighbours,
// reference 2, tau 3). Before, the liars counted in the rank: tau 5.25,
// the neighbour at 3.5 used whole and the mean 0.625, looser than
// without them.
func TestClipReferenceWithoutFar(t *testing.T) {
	rule := Robust{Bounds: DefaultBounds(), Clip: DefaultClipConfig(), Inner: Mean{}}
	self := contrib(1, 1, 0)
	honest := []Contribution{contrib(2, 1, 1), contrib(3, 1, -2), contrib(4, 1, 3.5)}
	liars := []Contribution{contrib(5, 1, 100), contrib(6, 1, -200), contrib(7, 1, 300)}
	out := make([]float32, 1)
	rep, err := rule.Aggregate(self, append(append([]Contribution(nil), honest...), liars...), out)
	if err != nil {
		t.Fatal(err)
	}
	near(t, out, 0.5)
	if rep.Used != 4 || len(rep.Outliers) != 4 {
		t.Fatalf("report %+v: want self and 3 honest used, 4 outliers", rep)
	}
	want := map[int]struct {
		sev    float64
		action OutlierAction
	}{2: {1 - 3/3.5, OutlierCut}, 3: {1 - 3.0/100, OutlierLeftOut}, 4: {1 - 3.0/200, OutlierLeftOut}, 5: {1 - 3.0/300, OutlierLeftOut}}
	for _, o := range rep.Outliers {
		w, ok := want[o.Index]
		if !ok || math.Abs(o.Severity-w.sev) > 1e-9 || o.Action != w.action {
			t.Fatalf("outlier %+v (%v), want %+v", o, o.Action, w)
		}
	}
	silent := make([]float32, 1)
	if _, err := rule.Aggregate(self, honest, silent); err != nil {
		t.Fatal(err)
	}
	near(t, silent, 0.5)
}
