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

// TestReportBackdoorBaseRate: the backdoor table gives, per rule, the
// trigger's success on the rule's model without attack at each seed
// beside the success under the backdoor; the no-attack run measures it
// only when the lab runs the backdoor.
func TestReportBackdoorBaseRate(t *testing.T) {
	p := byzScale(false)
	if err := p.applySelect("f=0.1 seeds=1,2 orders=1 rules=clipped-fedlay attacks=backdoor"); err != nil {
		t.Fatal(err)
	}
	s := newByzStudy(p)
	if !s.measuresTrigger(dflsim.AttackNone) || !s.measuresTrigger(dflsim.AttackBackdoor) || s.measuresTrigger(dflsim.AttackAbsent) {
		t.Errorf("with the backdoor: none %v, backdoor %v, absent %v; want true, true, false",
			s.measuresTrigger(dflsim.AttackNone), s.measuresTrigger(dflsim.AttackBackdoor), s.measuresTrigger(dflsim.AttackAbsent))
	}
	r, none, bd := "clipped-fedlay", dflsim.AttackNone, dflsim.AttackBackdoor
	s.asr[byzKey{0, 1, r, none}], s.asr[byzKey{0, 2, r, none}] = 0.10, 0.25
	s.asr[byzKey{0.1, 1, r, bd}], s.asr[byzKey{0.1, 2, r, bd}] = 0.12, 0.30
	var out bytes.Buffer
	s.reportBackdoor(Options{Seed: 1}, &out)
	if !strings.Contains(out.String(), "no-attack ASR per seed") || !strings.Contains(out.String(), "21.00 ") ||
		!strings.HasSuffix(strings.TrimSpace(out.String()), "10.00 / 25.00") {
		t.Errorf("backdoor table:\n%s\nwant ASR mean 21.00 and the base rates 10.00 / 25.00", out.String())
	}
	if err := p.applySelect("f=0.1 seeds=1 rules=clipped-fedlay attacks=sign-flip"); err != nil {
		t.Fatal(err)
	}
	if s := newByzStudy(p); s.measuresTrigger(dflsim.AttackNone) {
		t.Error("without the backdoor the no-attack run measures the trigger")
	}
}
