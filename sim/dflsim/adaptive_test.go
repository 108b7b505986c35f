package dflsim

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/attack"
	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/types/ident"
)

// TestAdaptiveSearch: we sit at 0 with four honest neighbours at
// distance 1 and one attacker slot searching along (1, 0). Under
// clipped-fedlay without our Origin (no direction check, no step floor)
// the reference is 1 (the 2nd closest of 5), tau 1.5, and a model is
// left out beyond 2.5: the attacker's strongest accepted model is at
// 2.5 (its severity there, 1 - 1.5/2.5 = 0.4, is under reputation's
// 0.5). Under plain fedlay nothing is refused: the search's bound.
func TestAdaptiveSearch(t *testing.T) {
	c := func(b byte, x, y float32) aggregate.Contribution {
		return aggregate.Contribution{From: ident.Peer{b}, Arch: "t", Params: []float32{x, y}, DataSize: 10, Period: 1, DataConf: 0.5}
	}
	self := c(1, 0, 0)
	nb := []aggregate.Contribution{c(2, 1, 0), c(3, 0, 1), c(4, -1, 0), c(5, 0, -1), c(6, 0, 0)}
	for _, tc := range []struct {
		rule string
		want float64
	}{{aggregate.SafeDefault, 2.5}, {"fedlay", attack.MaxGamma}} {
		cfg := learn.DefaultConfig()
		cfg.Aggregator = tc.rule
		a := &Adversary{Attack: AttackAdaptive}
		m := a.search(cfg, nil, self, nb, []int{4}, attack.MaxGamma,
			func(int) []float32 { return []float32{0, 0} }, func(int) []float32 { return []float32{1, 0} })
		if got := float64(m[4][0]); math.Abs(got-tc.want) > 0.01 || m[4][1] != 0 {
			t.Errorf("%s: strongest accepted model %v, want (%v, 0)", tc.rule, m[4], tc.want)
		}
		if nb[4].Params[0] != 0 {
			t.Fatalf("search changed its input: %v", nb[4].Params)
		}
	}
}

// TestTriggered: the triggered test set keeps only the other classes,
// all labelled BackdoorTarget, with the 3x3 patch one pixel in from the
// bottom-right corner.
func TestTriggered(t *testing.T) {
	d := &data.Dataset{Shape: [3]int{6, 6, 1}, Classes: 3, Y: []int32{0, 1, 2, 0}, X: make([]float32, 4*36)}
	tr := Triggered(d, 0, TriggerCorner)
	want := 0
	for _, y := range d.Y {
		if y != BackdoorTarget {
			want++
		}
	}
	if tr.Len() != want || want != 2 || d.X[(6-2)*6+6-2] != 0 {
		t.Fatalf("%d triggered images, want %d", tr.Len(), want)
	}
	x, y := tr.Sample(0)
	rows, cols := d.Shape[0], d.Shape[1]
	if y != BackdoorTarget || x[(rows-2)*cols+cols-2] != 1 || x[(rows-4)*cols+cols-4] != 1 || x[(rows-1)*cols+cols-1] != 0 || x[(rows-5)*cols+cols-5] != 0 {
		t.Fatalf("triggered sample: label %d, patch wrong", y)
	}
}

// TestTriggerCentre: the centre trigger covers the middle 3x3 of a 7x7
// image (rows and columns 2-4) and nothing else; the zero place is the
// corner; the trained backdoor stamps where its place says; an unknown
// place is refused.
func TestTriggerCentre(t *testing.T) {
	shape := [3]int{7, 7, 1}
	x := make([]float32, 49)
	Trigger(x, shape, TriggerCentre)
	for r := range 7 {
		for c := range 7 {
			want := float32(0)
			if r >= 2 && r <= 4 && c >= 2 && c <= 4 {
				want = 1
			}
			if x[r*7+c] != want {
				t.Fatalf("centre trigger: pixel (%d, %d) = %v, want %v", r, c, x[r*7+c], want)
			}
		}
	}
	corner, zero := make([]float32, 49), make([]float32, 49)
	Trigger(corner, shape, TriggerCorner)
	Trigger(zero, shape, "")
	if !slices.Equal(corner, zero) || corner[5*7+5] != 1 || corner[2*7+2] != 0 || corner[6*7+6] != 0 {
		t.Fatalf("corner trigger %v, zero place %v", corner, zero)
	}
	arch, err := nn.ArchFor("mlp", shape, 3)
	if err != nil {
		t.Fatal(err)
	}
	opt, err := nn.NewSGD(0.1, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := backdoorBackend(TriggerCentre)(arch, opt)
	if err != nil {
		t.Fatal(err)
	}
	if tb, ok := b.(triggerBackend); !ok || tb.place != TriggerCentre {
		t.Fatalf("backend %T %+v: want a trigger backend at the centre", b, b)
	}
	a := Adversary{Attack: AttackBackdoor, Byzantine: make([]bool, 3), TriggerAt: "middle"}
	if err := a.Validate(3); !errors.Is(err, ErrConfig) {
		t.Fatalf("trigger place %q: %v, want ErrConfig", a.TriggerAt, err)
	}
}

// TestRuleOfCoordFloor: the adaptive attackers search against the
// receiver's rule as its name builds it, the coordinate radius and its
// floor from our own step included (a lab name "coordclippedR-sF-X").
func TestRuleOfCoordFloor(t *testing.T) {
	cfg := learn.DefaultConfig()
	cfg.Aggregator = "coordclipped4-s2-fedlay"
	a, err := ruleOf(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := a.(aggregate.Robust); !ok || r.Clip.CoordRadius != 4 || r.Clip.CoordFloor != 2 {
		t.Fatalf("%T %+v: want Robust with coordinate radius 4, floor 2", a, a)
	}
}

// TestRuleOfScreen: a receiver with the loss screen (learn.Config.Screen)
// aggregates behind it, so the attackers' rebuilt rule runs it too (with
// the receiver's scoring: full knowledge), and they still read the
// robust rule's checks behind it; a model the screen refuses is refused
// in their simulation.
func TestRuleOfScreen(t *testing.T) {
	cfg := learn.DefaultConfig()
	cfg.Aggregator = aggregate.SafeDefault
	cfg.Screen = learn.ScreenConfig{Loss: func(p []float32) (float64, error) { return float64(p[0]), nil }, Factor: 2, Margin: 0.1}
	a, err := ruleOf(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := a.(learn.Screened); !ok {
		t.Fatalf("%T: want learn.Screened", a)
	}
	if r, ok := aggregate.RobustOf(a); !ok || r.Clip.ConsensusCos <= 0 {
		t.Fatalf("RobustOf(%T) = %v: want the default robust rule with its consensus check", a, ok)
	}
	c := func(i int, v float32) aggregate.Contribution {
		return aggregate.Contribution{From: PeerID(1, i), Params: []float32{v, 0}, Arch: "t", DataSize: 10, Period: 1, DataConf: 0.5}
	}
	rep, err := a.Aggregate(c(0, 1), []aggregate.Contribution{c(1, 1.1), c(2, 0.9), c(3, 9)}, make([]float32, 2))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Refused) != 1 || rep.Refused[0].Index != 2 || !errors.Is(rep.Refused[0].Err, learn.ErrScreened) {
		t.Fatalf("refused %+v: want the model of loss 9 screened", rep.Refused)
	}
}

// TestAdaptiveBalances: the attackers balance their push's signs
// against a rule with the sign check, and with Balance against any.
func TestAdaptiveBalances(t *testing.T) {
	for _, tc := range []struct {
		rule    string
		balance bool
		want    bool
	}{{"sign20-fedlay", false, true}, {aggregate.SafeDefault, false, false}, {aggregate.SafeDefault, true, true}, {"fedlay", true, true}} {
		cfg := learn.DefaultConfig()
		cfg.Aggregator = tc.rule
		if got := (&Adversary{Attack: AttackAdaptive, Balance: tc.balance}).balances(cfg); got != tc.want {
			t.Errorf("%s, Balance %v: balances %v, want %v", tc.rule, tc.balance, got, tc.want)
		}
	}
}

// TestCollapseBeyondEcho: the collapse attack's near-copies of a
// receiver whose last step was 2 long sit just beyond its rule's copy
// radius (copy25-fedlay: 0.5, times 1.1), and, where the receiver runs
// the neighbourhood check with a wider echo bound (0.5 own steps: 1),
// just beyond that instead.
func TestCollapseBeyondEcho(t *testing.T) {
	c := func(b byte, x, y float32) aggregate.Contribution {
		return aggregate.Contribution{From: ident.Peer{b}, Arch: "t", Params: []float32{x, y}, DataSize: 10, Period: 1, DataConf: 0.5}
	}
	cfg := learn.DefaultConfig()
	cfg.Aggregator = "copy25-fedlay"
	for _, tc := range []struct {
		echo, want float64
	}{{0, 0.55}, {0.1, 0.55}, {0.5, 1.1}} {
		self := c(1, 2, 0)
		self.Origin = []float32{0, 0}
		nb := []aggregate.Contribution{c(2, 2, 1), c(3, 0, 0)}
		a := &Adversary{Attack: AttackCollapse, Seed: 1, EchoBelow: tc.echo}
		a.collapse(cfg, self, nb, []int{1})
		d := math.Hypot(float64(nb[1].Params[0]-2), float64(nb[1].Params[1]))
		if math.Abs(d-tc.want) > 1e-5 {
			t.Errorf("echo bound %v: the near-copy lies %v from the receiver's model, want %v", tc.echo, d, tc.want)
		}
		if nb[0].Params[0] != 2 || nb[0].Params[1] != 1 {
			t.Errorf("echo bound %v: the honest model changed: %v", tc.echo, nb[0].Params)
		}
	}
}
