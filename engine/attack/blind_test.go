package attack

import (
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

// TestBlind: the attacker's own model is at 0, its four earlier models
// (the stand-ins) at distance 1, and it pushes along (3, 0), which Blind
// rescales to the stand-ins' median distance, 1. Under clipped-fedlay
// without an Origin (no direction check, no step floor) the reference is
// 1 (the 2nd closest of 5), tau 1.5, and a model beyond 2.5 is left out:
// the strongest accepted model is (2.5, 0), its severity there 0.4 under
// reputation's 0.5. Plain fedlay refuses nothing: the search's bound.
// Without a stand-in, or with a zero direction, there is no scale.
func TestBlind(t *testing.T) {
	own := aggregate.Contribution{Arch: "t", Params: []float32{0, 0}, DataSize: 10, Period: 1, DataConf: 0.5}
	standIns := [][]float32{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}
	tol := aggregate.DefaultReputationConfig().Tolerance
	for _, tc := range []struct {
		rule  string
		gamma float64
	}{{aggregate.SafeDefault, 2.5}, {"fedlay", MaxGamma}} {
		rule, err := aggregate.New(tc.rule)
		if err != nil {
			t.Fatal(err)
		}
		m, g, ok := Blind(rule, tol, own, standIns, []float32{3, 0})
		if !ok || math.Abs(g-tc.gamma) > 0.01 || math.Abs(float64(m[0])-tc.gamma) > 0.01 || m[1] != 0 {
			t.Errorf("%s: model %v, gamma %v, ok %v; want (%v, 0)", tc.rule, m, g, ok, tc.gamma)
		}
		if own.Params[0] != 0 || standIns[0][0] != 1 {
			t.Fatalf("Blind changed its input: %v %v", own.Params, standIns)
		}
	}
	rule, _ := aggregate.New(aggregate.SafeDefault)
	if _, _, ok := Blind(rule, tol, own, nil, []float32{1, 0}); ok {
		t.Errorf("no stand-in: ok, want no scale")
	}
	if _, _, ok := Blind(rule, tol, own, standIns, []float32{0, 0}); ok {
		t.Errorf("zero direction: ok, want no scale")
	}
	if _, _, ok := Blind(rule, tol, own, standIns, []float32{1}); ok {
		t.Errorf("direction of another length: ok, want refused")
	}
}
