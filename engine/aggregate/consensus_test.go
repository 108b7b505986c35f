package aggregate

import (
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

// TestConsensusCheck: four neighbours moved about (1, 0) from us and one
// at (-1, 0), as near as they are. The coordinate-wise median of the
// differences is about (1, 0): "cons30-fedlay" leaves the one pulling
// the other way out (cosine about -1, severity (0.3 + 1) / 1.3 = 1) and
// keeps the four; "ablate-cons-fedlay" (and no Origin: no direction
// check) uses all five. With three neighbours (under DirectionWitnesses) nothing is
// judged.
func TestConsensusCheck(t *testing.T) {
	c := func(b byte, x, y float32) Contribution {
		return Contribution{From: ident.Peer{b}, Arch: "t", Params: []float32{x, y}, DataSize: 10, Period: 1, DataConf: 0.5}
	}
	self := c(1, 0, 0)
	nb := []Contribution{c(2, 1, 0.2), c(3, 1, -0.2), c(4, 0.8, 0), c(5, 1.2, 0.1), c(6, -1, 0)}
	for _, tc := range []struct {
		name   string
		others []Contribution
		out    bool // the last one left out
	}{{"cons30-fedlay", nb, true}, {"ablate-cons-fedlay", nb, false}, {"cons30-fedlay", []Contribution{nb[0], nb[1], nb[4]}, false}} {
		rule, err := New(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := rule.Aggregate(self, tc.others, make([]float32, 2))
		if err != nil {
			t.Fatal(err)
		}
		last := len(tc.others) - 1
		var left []int
		var sev float64
		for _, o := range rep.Outliers {
			if o.Action == OutlierLeftOut {
				left = append(left, o.Index)
				sev = o.Severity
			}
		}
		if tc.out && (len(left) != 1 || left[0] != last || math.Abs(sev-1) > 1e-9) {
			t.Errorf("%s: left out %v (severity %v), want only %d at 1", tc.name, left, sev, last)
		}
		if !tc.out && len(left) != 0 {
			t.Errorf("%s with %d neighbours: left out %v, want none", tc.name, len(tc.others), left)
		}
	}
}
