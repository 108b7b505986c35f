package aggregate

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// floorCase: us at 0 having stepped 0.1 at coordinate 0 (Origin -0.1)
// and not at all at coordinate 1 (a trigger's weight). At coordinate 0
// the neighbours move 0.3, 0.02, 0.02, -0.02, 0 (median 0.02); at
// coordinate 1 one of them moves 0.5 alone (median 0); at coordinate 2
// all move 0.3 either way, so that their L2 distances are alike (none
// beyond the L2 radius).
func floorCase() (Contribution, []Contribution) {
	self := contrib(1, 1, 0, 0, 0)
	self.Origin = []float32{-0.1, 0, 0}
	return self, []Contribution{contrib(2, 1, 0.3, 0, 0.3), contrib(3, 1, 0.02, 0, 0.3), contrib(4, 1, 0.02, 0, -0.3),
		contrib(5, 1, -0.02, 0, 0.3), contrib(6, 1, 0, 0.5, -0.3)}
}

// TestCoordFloorOpensOurStep: radius 4 alone clamps the 0.3 move at
// coordinate 0 to 0.08 (4 x 0.02); a floor of 2 own steps opens it to 0.2,
// a floor of 4 (0.4) keeps it whole. At coordinate 1, where our step is
// 0, the sparse 0.5 is cut to our value under every floor. Without an
// Origin, or with one of another length, there is no floor.
func TestCoordFloorOpensOurStep(t *testing.T) {
	for _, tc := range []struct {
		floor   float64
		origin  bool
		short   bool
		want0   float32 // neighbour 0's coordinate 0 after the clamp
		comment string
	}{
		{0, true, false, 0.08, "no floor"},
		{2, true, false, 0.2, "floor 2 own steps"},
		{4, true, false, 0.3, "floor 4 own steps: whole"},
		{4, false, false, 0.08, "floor without Origin"},
		{4, true, true, 0.08, "floor with an Origin of another length"},
	} {
		self, others := floorCase()
		switch {
		case !tc.origin:
			self.Origin = nil
		case tc.short:
			self.Origin = self.Origin[:2]
		}
		kept := slices.Clone(others)
		ClipConfig{CoordRadius: 4, CoordFloor: tc.floor}.coordClip(self, kept)
		if got := kept[0].Params[0]; math.Abs(float64(got-tc.want0)) > 1e-6 {
			t.Errorf("%s: coordinate 0 %v, want %v", tc.comment, got, tc.want0)
		}
		if got := kept[4].Params[1]; got != 0 {
			t.Errorf("%s: the sparse change at coordinate 1 kept %v, want 0 (our step there is 0)", tc.comment, got)
		}
		if others[0].Params[0] != 0.3 || others[4].Params[1] != 0.5 {
			t.Fatalf("%s: inputs changed", tc.comment)
		}
	}
}

// TestCoordFloorNameRefused: a floor that is 0, over coordFloorMax,
// empty, signed, with a leading zero, fractional or not a number, a
// missing dash, a second floor or an unweighted base is an unknown rule,
// never one without a floor.
func TestCoordFloorNameRefused(t *testing.T) {
	for _, name := range []string{
		"coordclipped4-s0-fedlay", "coordclipped4-s101-fedlay", "coordclipped4-s1000-fedlay",
		"coordclipped4-s-fedlay", "coordclipped4-s+2-fedlay", "coordclipped4-s02-fedlay",
		"coordclipped4-s1.5-fedlay", "coordclipped4-sx-fedlay", "coordclipped4-s2fedlay",
		"coordclipped4-s2-", "coordclipped4-s2-s2-fedlay", "coordclipped4-s2-median",
		"coordclipped0-s2-fedlay", "coordclipped-s0-fedlay", "coordclipped4s2-fedlay",
	} {
		if _, err := New(name); !errors.Is(err, ErrUnknown) {
			t.Errorf("New(%q): %v, want ErrUnknown", name, err)
		}
		if _, err := ParseRule(name); !errors.Is(err, ErrUnknown) {
			t.Errorf("ParseRule(%q): %v, want ErrUnknown", name, err)
		}
	}
}

// TestCoordFloorActs: through New, the name's floor reaches the clamp.
// floorCase's neighbours are inside the L2 rejection radius and point
// along our step (no refusal); with a floor of
// 4 own steps the 0.3 move at coordinate 0 is kept whole and the
// aggregate there is larger than radius 4's alone; the sparse 0.5 at
// coordinate 1 stays out under both. Without our Origin the two rules
// agree to the bit.
func TestCoordFloorActs(t *testing.T) {
	agg := func(name string, origin bool) []float32 {
		a, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		self, others := floorCase()
		if !origin {
			self.Origin = nil
		}
		out := make([]float32, 3)
		if _, err := a.Aggregate(self, others, out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	plain, floored := agg("coordclipped4-mean", true), agg("coordclipped4-s4-mean", true)
	if !(floored[0] > plain[0]) || plain[1] != 0 || floored[1] != 0 {
		t.Fatalf("radius 4 %v, with floor 4 %v: want coordinate 0 larger with the floor, coordinate 1 at 0 under both", plain, floored)
	}
	if a, b := agg("coordclipped4-mean", false), agg("coordclipped4-s4-mean", false); !slices.Equal(a, b) {
		t.Fatalf("without Origin: %v against %v, want equal", a, b)
	}
}

// TestCoordFloorValidate refuses a negative, NaN or infinite floor, and a
// floor without a coordinate radius (it would do nothing).
func TestCoordFloorValidate(t *testing.T) {
	for _, tc := range []struct{ radius, floor float64 }{
		{4, -1}, {4, math.NaN()}, {4, math.Inf(1)}, {0, 2},
	} {
		c := DefaultClipConfig()
		c.CoordRadius, c.CoordFloor = tc.radius, tc.floor
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("radius %v floor %v: %v, want ErrConfig", tc.radius, tc.floor, err)
		}
	}
	c := DefaultClipConfig()
	c.CoordRadius, c.CoordFloor = 4, 2
	if err := c.Validate(); err != nil {
		t.Fatalf("radius 4 floor 2: %v", err)
	}
}
