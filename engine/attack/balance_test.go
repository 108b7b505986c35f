package attack

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/types/ident"
)

// TestBalanceSigns: the smallest entries of the outnumbering sign go to
// 0 until the signs count the same; the rest are untouched.
func TestBalanceSigns(t *testing.T) {
	// Five negatives against two positives, then as many of each sign
	// (a push long enough for the check to judge): the three smallest
	// negatives go, -4 and -3 stay.
	pad := func(v ...float32) []float32 {
		for i := range 2 * aggregate.SignMinChanged {
			v = append(v, float32(1-2*(i%2))*10)
		}
		return v
	}
	v := pad(-3, -0.1, 2, -0.5, 0, -4, -0.2, 0.01)
	if !BalanceSigns(v) {
		t.Fatal("nothing left")
	}
	if want := pad(-3, 0, 2, 0, 0, -4, 0, 0.01); !slices.Equal(v, want) {
		t.Fatalf("got %v, want %v", v[:8], want[:8])
	}
	w := make([]float32, aggregate.SignMinChanged)
	for i := range w {
		w[i] = float32(i + 1)
	}
	if BalanceSigns(w) || slices.ContainsFunc(w, func(x float32) bool { return x != 0 }) {
		t.Fatalf("all one sign: %v, want all zeroed and false", w)
	}
	// Too short for the check to judge: left as it is.
	short := []float32{1, 2, 3}
	if !BalanceSigns(short) || !slices.Equal(short, []float32{1, 2, 3}) {
		t.Fatalf("a push of 3: %v, want it untouched", short)
	}
}

// TestSignChecked: only a robust rule with a sign bar.
func TestSignChecked(t *testing.T) {
	for name, want := range map[string]bool{"sign20-fedlay": true, "clipped-fedlay": aggregate.DefaultClipConfig().SignBar > 0, "fedlay": false} {
		r, err := aggregate.New(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := SignChecked(r); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}

// TestBlindBalancesSigns: against a rule with the sign check, a push
// that moves 80% of the weights down is refused at any size (the search's
// gamma 0), and Blind, which balances its signs first, finds a model
// the rule uses. The stand-ins are drawn at random, so they agree on
// nothing: the consensus check is off here (it would judge noise).
func TestBlindBalancesSigns(t *testing.T) {
	const m = 200
	rng := rand.New(rand.NewPCG(3, 4))
	o := aggregate.DefaultOptions()
	o.Clip.ConsensusCos = 0
	rule, err := aggregate.NewWith("sign20-fedlay", o)
	if err != nil {
		t.Fatal(err)
	}
	own := aggregate.Contribution{From: ident.Peer{9}, Arch: "t", Params: make([]float32, m), DataSize: 10, Period: 1, DataConf: 0.5}
	var standIns [][]float32
	for range 6 {
		p := make([]float32, m)
		for i := range p {
			p[i] = float32(rng.NormFloat64())
		}
		standIns = append(standIns, p)
	}
	down := make([]float32, m)
	for i := range down {
		down[i] = -float32(1 + rng.Float64())
		if i%5 == 0 {
			down[i] = -down[i]
		}
	}
	tol := aggregate.DefaultReputationConfig().Tolerance
	nb := make([]aggregate.Contribution, 0, 7)
	for k, p := range standIns {
		c := own
		c.Params, c.From = p, ident.Peer{byte(k + 1)}
		nb = append(nb, c)
	}
	evil := own
	evil.From = ident.Peer{0xff}
	nb = append(nb, evil)
	d := slices.Clone(down)
	if !ScaleTo(d, MedianDistance(own.Params, nb, []int{6})) {
		t.Fatal("no scale")
	}
	if _, g := Search(rule, tol, own, nb, []int{6}, MaxGamma, func(int) []float32 { return own.Params }, func(int) []float32 { return d }); g != 0 {
		t.Fatalf("an 80%%-down push accepted at gamma %v, want refused at any size", g)
	}
	res, g, ok := Blind(rule, tol, own, standIns, down)
	if !ok || g <= 0 {
		t.Fatalf("Blind: gamma %v ok %v, want a model the rule uses", g, ok)
	}
	var neg, pos int
	for _, v := range res {
		if v < 0 {
			neg++
		} else if v > 0 {
			pos++
		}
	}
	if neg != pos || neg == 0 {
		t.Fatalf("Blind's model: %d down, %d up, want as many each", neg, pos)
	}
}
