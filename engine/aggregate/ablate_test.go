package aggregate

import (
	"errors"
	"slices"
	"testing"
)

// TestAblateFromName: "ablate-PART-X" builds X inside Robust with
// DefaultClipConfig less exactly that part, and nothing else changed;
// ParseRule and IsRobustName agree with New, and Names (what a task spec
// may name) lists none.
func TestAblateFromName(t *testing.T) {
	d := DefaultClipConfig()
	for _, tc := range []struct {
		name string
		want func(c ClipConfig) ClipConfig
	}{
		{"ablate-reject-fedlay", func(c ClipConfig) ClipConfig { c.Reject = 0; return c }},
		{"ablate-direction-fedlay", func(c ClipConfig) ClipConfig { c.Direction = false; return c }},
		{"ablate-behind-mean", func(c ClipConfig) ClipConfig { c.Behind = 0; return c }},
		{"ablate-floors-fedlay", func(c ClipConfig) ClipConfig { c.StepFloor, c.MedianFloor, c.MedianCap = 0, 0, 0; return c }},
		{"ablate-cons-fedlay", func(c ClipConfig) ClipConfig { c.ConsensusCos = 0; return c }},
		{"ablate-cut-dechw", func(c ClipConfig) ClipConfig { c.Scale, c.Reject = 2.5, 1; return c }},
		{"ablate-coord-fedlay", func(c ClipConfig) ClipConfig { c.CoordRadius, c.CoordFloor = 0, 0; return c }},
		{"ablate-copy-fedlay", func(c ClipConfig) ClipConfig { c.CopyBelow = 0; return c }},
	} {
		a, err := New(tc.name)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		r, ok := a.(Robust)
		if !ok || r.Clip != tc.want(d) {
			t.Errorf("%s: %T %+v, want Robust with %+v", tc.name, a, r.Clip, tc.want(d))
		}
		if r.Clip == d {
			t.Errorf("%s: the default clip, want one part off", tc.name)
		}
		p, err := ParseRule(tc.name)
		if err != nil || !p.Clipped || !p.Robust() {
			t.Errorf("%s: ParseRule %+v %v", tc.name, p, err)
		}
		if slices.Contains(Names(), tc.name) {
			t.Errorf("%s: in Names, want the lab's only", tc.name)
		}
	}
}

// TestAblateNameRefused: an unknown part, a missing part or dash, or an
// unweighted base is an unknown rule, never the default.
func TestAblateNameRefused(t *testing.T) {
	for _, name := range []string{
		"ablate-fedlay", "ablate--fedlay", "ablate-radius-fedlay", "ablate-reject", "ablate-reject-",
		"ablate-reject-median", "ablate-Reject-fedlay", "ablate-reject-clipped-fedlay", "ablate",
	} {
		if _, err := New(name); !errors.Is(err, ErrUnknown) {
			t.Errorf("New(%q): %v, want ErrUnknown", name, err)
		}
		if _, err := ParseRule(name); !errors.Is(err, ErrUnknown) {
			t.Errorf("ParseRule(%q): %v, want ErrUnknown", name, err)
		}
	}
}

// TestAblateRejectAndCut: one neighbour 3 units away among three at 1
// (reference 1, tau 1.5, radius 2.5). The default leaves the far one out
// and uses the near ones whole; without the radius it is cut to tau and
// used; without the cut it is still left out (the radius stays), and a
// neighbour at 2, cut to 1.5 by the default, is used whole.
func TestAblateRejectAndCut(t *testing.T) {
	self := contrib(0, 10, 0)
	others := []Contribution{contrib(1, 10, 1), contrib(2, 10, -1), contrib(3, 10, 1), contrib(4, 10, 3)}
	out := make([]float32, 1)
	mean := func(name string, want float64) {
		t.Helper()
		a, err := newToy(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Aggregate(self, others, out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		near(t, out, want)
	}
	// Mean: self and the used models, equally weighted.
	mean("clipped-mean", 0.25)      // (0+1-1+1)/4: the far model left out
	mean("ablate-reject-mean", 0.5) // (0+1-1+1+1.5)/5: cut to tau and used
	mean("ablate-cut-mean", 0.25)   // the radius kept
	others[3] = contrib(4, 10, 2)   // inside the radius, beyond tau
	mean("clipped-mean", 0.5)       // (0+1-1+1+1.5)/5: cut to tau
	mean("ablate-cut-mean", 0.6)    // (0+1-1+1+2)/5: used whole
	mean("ablate-reject-mean", 0.5) // as the default inside the radius
}
