package scenario

import (
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/theory/topology"
)

// TestIsolated: the local-only reference cuts the victim's links both
// ways and keeps every other edge.
func TestIsolated(t *testing.T) {
	g, err := topology.RingLattice(6, 4)
	if err != nil {
		t.Fatal(err)
	}
	h, err := isolated(g, 2)
	if err != nil {
		t.Fatal(err)
	}
	if h.Degree(2) != 0 || h.M() != g.M()-g.Degree(2) {
		t.Fatalf("victim degree %d, edges %d; want 0, %d", h.Degree(2), h.M(), g.M()-g.Degree(2))
	}
	for u := range g.N() {
		for _, v := range g.Neighbors(u) {
			if u != 2 && v != 2 && !h.HasEdge(u, v) {
				t.Fatalf("edge %d-%d lost", u, v)
			}
		}
	}
}

// TestSplitHealth: a lab rule with the suffix runs the check on the rule
// before it, which alone decides robustness.
func TestSplitHealth(t *testing.T) {
	for _, tc := range []struct {
		name, base    string
		check, robust bool
	}{
		{"clipped-fedlay+health", "clipped-fedlay", true, true},
		{"fedlay+health", "fedlay", true, false},
		{"clipped-fedlay", "clipped-fedlay", false, true},
		{"clipped-fedlay+drift+health", "clipped-fedlay+drift", true, true},
		{"fedlay+drift", "fedlay+drift", false, false},
	} {
		base, check := splitHealth(tc.name)
		if base != tc.base || check != tc.check || isRobustRule(tc.name) != tc.robust {
			t.Errorf("%s: %q %v robust %v, want %q %v %v", tc.name, base, check, isRobustRule(tc.name), tc.base, tc.check, tc.robust)
		}
	}
	for _, tc := range []struct {
		name, base string
		limit      float64
		suspend    bool
	}{
		{"clipped-fedlay+drift", "clipped-fedlay", aggregate.DefaultDriftConfig().Limit, false},
		{"clipped-fedlay+suspend", "clipped-fedlay", aggregate.DefaultDriftConfig().Limit, true},
		{"clipped-fedlay", "clipped-fedlay", 0, false},
		{"clipped-fedlay+suspend+drift", "clipped-fedlay+suspend", aggregate.DefaultDriftConfig().Limit, false},
	} {
		base, drift := splitDrift(tc.name)
		if base != tc.base || drift.Limit != tc.limit || drift.Suspend != tc.suspend {
			t.Errorf("splitDrift(%q): %q %+v, want %q limit %g suspend %v", tc.name, base, drift, tc.base, tc.limit, tc.suspend)
		}
	}
}
