package aggregate

import (
	"errors"
	"slices"
	"testing"
)

// TestCoordRadiusFromName: the lab's "coordclippedR-X" builds X inside
// Robust with CoordRadius R, "coordclipped-X" with coordRadius, and
// "coordclippedR-sF-X" ("coordclipped-sF-X") also with CoordFloor F; a
// radius or floor in Options.Clip wins over the name's; ParseRule and
// IsRobustName agree with New, and Names (what a task spec may name)
// lists none.
func TestCoordRadiusFromName(t *testing.T) {
	for _, tc := range []struct {
		name                string
		setRadius, setFloor float64
		radius, floor       float64
		base                string
	}{
		{"coordclipped-fedlay", 0, 0, coordRadius, 0, "fedlay"},
		{"coordclipped16-fedlay", 0, 0, 16, 0, "fedlay"},
		{"coordclipped8-mean", 0, 0, 8, 0, "mean"},
		{"coordclipped1000-dechw", 0, 0, coordRadiusMax, 0, "dechw"},
		{"coordclipped32-fedlay", 3, 0, 3, 0, "fedlay"},
		{"coordclipped4-s2-fedlay", 0, 0, 4, 2, "fedlay"},
		{"coordclipped-s1-mean", 0, 0, coordRadius, 1, "mean"},
		{"coordclipped16-s100-dechw", 0, 0, 16, coordFloorMax, "dechw"},
		{"coordclipped8-s4-decavg", 0, 3, 8, 3, "decavg"},
	} {
		o := DefaultOptions()
		o.Clip.CoordRadius, o.Clip.CoordFloor = tc.setRadius, tc.setFloor
		a, err := NewWith(tc.name, o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		r, ok := a.(Robust)
		if !ok || r.Clip.CoordRadius != tc.radius || r.Clip.CoordFloor != tc.floor {
			t.Errorf("%s: %T radius %v floor %v, want Robust with %v, %v", tc.name, a, r.Clip.CoordRadius, r.Clip.CoordFloor, tc.radius, tc.floor)
		}
		p, err := ParseRule(tc.name)
		if err != nil || p.Base != tc.base || !p.Clipped || !p.Robust() {
			t.Errorf("%s: ParseRule %+v %v", tc.name, p, err)
		}
		if slices.Contains(Names(), tc.name) {
			t.Errorf("%s: in Names, want the lab's only", tc.name)
		}
	}
}

// TestCoordRadiusNameRefused: a radius that is 0, over coordRadiusMax,
// signed, with a leading zero or not a number, a missing dash or an
// unweighted base is an unknown rule, never a default radius.
func TestCoordRadiusNameRefused(t *testing.T) {
	for _, name := range []string{
		"coordclipped0-fedlay", "coordclipped04-fedlay", "coordclipped1001-fedlay",
		"coordclipped99999-fedlay", "coordclippedx-fedlay", "coordclipped+8-fedlay",
		"coordclipped-8-fedlay", "coordclipped8fedlay", "coordclipped8-", "coordclipped8-median",
		"coordclipped1.5-fedlay", "coordclipped",
	} {
		if _, err := New(name); !errors.Is(err, ErrUnknown) {
			t.Errorf("New(%q): %v, want ErrUnknown", name, err)
		}
		if _, err := ParseRule(name); !errors.Is(err, ErrUnknown) {
			t.Errorf("ParseRule(%q): %v, want ErrUnknown", name, err)
		}
	}
}

// TestCoordRadiusActs: the name's radius reaches the clamp. At
// coordinate 0 the neighbours' moves are 0.3, 0.02, 0.02, 0.02, 0
// (median 0.02): radius 4 clamps the 0.3 to 0.08, radius 16 (bound 0.32)
// keeps it, so coordclipped16-mean's aggregate there is the larger;
// coordinate 1, where all move 0.3 (bound 1.2 or more), is the same
// under both.
func TestCoordRadiusActs(t *testing.T) {
	self := contrib(1, 1, 0, 0)
	others := []Contribution{contrib(2, 1, 0.3, 0.3), contrib(3, 1, 0.02, 0.3), contrib(4, 1, 0.02, -0.3),
		contrib(5, 1, -0.02, 0.3), contrib(6, 1, 0, -0.3)}
	agg := func(name string) []float32 {
		a, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]float32, 2)
		if _, err := a.Aggregate(self, slices.Clone(others), out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	r4, r16 := agg("coordclipped4-mean"), agg("coordclipped16-mean")
	if !(r16[0] > r4[0]) || r4[1] != r16[1] {
		t.Fatalf("radius 4 %v, radius 16 %v: want coordinate 0 larger under 16, coordinate 1 equal", r4, r16)
	}
}
