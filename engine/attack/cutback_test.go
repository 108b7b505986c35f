package attack

import (
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/types/ident"
)

// TestCutBack: we sit at 0 with four honest neighbours at distance 1;
// under clipped-fedlay without an Origin the reference is 1, tau 1.5,
// and the radius 2.5. A slot at (2.5, 0) is cut back (severity 0.4):
// CutBack moves it to (1.5, 0), where the rule uses it whole (no
// outlier). A slot at (3, 0), left out, stays where it is; under plain
// fedlay (no cut) nothing moves.
func TestCutBack(t *testing.T) {
	c := func(b byte, x, y float32) aggregate.Contribution {
		return aggregate.Contribution{From: ident.Peer{b}, Arch: "t", Params: []float32{x, y}, DataSize: 10, Period: 1, DataConf: 0.5}
	}
	self := c(1, 0, 0)
	nb := []aggregate.Contribution{c(2, 1, 0), c(3, 0, 1), c(4, -1, 0), c(5, 0, -1), c(6, 0, 0)}
	for _, tc := range []struct {
		rule      string
		at, wantX float32
	}{{aggregate.SafeDefault, 2.5, 1.5}, {aggregate.SafeDefault, 3, 3}, {"fedlay", 2.5, 2.5}} {
		rule, err := aggregate.New(tc.rule)
		if err != nil {
			t.Fatal(err)
		}
		models := map[int][]float32{4: {tc.at, 0}}
		if err := CutBack(rule, self, nb, models); err != nil {
			t.Fatal(err)
		}
		if m := models[4]; math.Abs(float64(m[0]-tc.wantX)) > 1e-5 || m[1] != 0 {
			t.Errorf("%s, slot at %v: cut back to %v, want (%v, 0)", tc.rule, tc.at, m, tc.wantX)
		}
		if nb[4].Params[0] != 0 {
			t.Fatalf("CutBack changed nb: %v", nb[4].Params)
		}
		if tc.rule != aggregate.SafeDefault || tc.wantX != 1.5 {
			continue
		}
		trial := append([]aggregate.Contribution(nil), nb...)
		trial[4].Params = models[4]
		rep, err := rule.Aggregate(self, trial, make([]float32, 2))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range rep.Outliers {
			if o.Index == 4 {
				t.Errorf("the cut-back model is still an outlier: %+v", o)
			}
		}
	}
}
