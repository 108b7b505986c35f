package scenario

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/sim/dflsim"
)

// TestPairedCost: the differences 2, 4, 6 points have mean 4 and
// standard error 2/sqrt(3) (sample deviation 2); one order has none; a
// length mismatch or no order is no cost at all.
func TestPairedCost(t *testing.T) {
	m, se, ok := pairedCost([]float64{0.50, 0.52, 0.56}, []float64{0.48, 0.48, 0.50})
	if !ok || math.Abs(m-4) > 1e-9 || math.Abs(se-2/math.Sqrt(3)) > 1e-9 {
		t.Errorf("pairedCost: %v ± %v (%v), want 4 ± %v", m, se, ok, 2/math.Sqrt(3))
	}
	if m, se, ok := pairedCost([]float64{0.5}, []float64{0.49}); !ok || math.Abs(m-1) > 1e-9 || se != 0 {
		t.Errorf("one order: %v ± %v (%v), want 1 ± 0", m, se, ok)
	}
	for _, c := range [][2][]float64{{{0.5, 0.5}, {0.5}}, {nil, nil}} {
		if _, _, ok := pairedCost(c[0], c[1]); ok {
			t.Errorf("pairedCost(%v, %v): ok, want none", c[0], c[1])
		}
	}
}

// TestReportCosts: with two orders the no-attack cost line gives each
// rule's per-seed mean and standard error and their mean; a rule not run
// without attack gets no line, and with one order there is none.
func TestReportCosts(t *testing.T) {
	p := byzScale(false)
	if err := p.applySelect("f=0 seeds=1,2 orders=2 rules=clipped-fedlay,ablate-behind-fedlay"); err != nil {
		t.Fatal(err)
	}
	s := newByzStudy(p)
	none := dflsim.AttackNone
	s.orderAcc[byzKey{0, 1, "fedlay", none}] = []float64{0.55, 0.53}
	s.orderAcc[byzKey{0, 1, "clipped-fedlay", none}] = []float64{0.54, 0.54}
	s.orderAcc[byzKey{0, 2, "fedlay", none}] = []float64{0.50, 0.52}
	s.orderAcc[byzKey{0, 2, "clipped-fedlay", none}] = []float64{0.47, 0.47}
	var out bytes.Buffer
	s.reportCosts(Options{Seed: 1}, &out)
	want := "  cost of clipped-fedlay without attack per seed (± standard error over 2 orders, paired by order): 0.00 ± 1.00 / 4.00 ± 1.00; mean 2.00\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	s.p.orders = 1
	out.Reset()
	s.reportCosts(Options{Seed: 1}, &out)
	if strings.Contains(out.String(), "cost") {
		t.Errorf("one order: %q, want no line", out.String())
	}
}
