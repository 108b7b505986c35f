package dflsim

import (
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

// z_max of Baruch et al. (2019), checked on values computed by hand
// (Python's statistics.NormalDist().inv_cdf): n = 50, m = 12 gives
// s = 26 - 12 = 14 and Phi^-1(36/50).
func TestALIEZ(t *testing.T) {
	for _, c := range []struct {
		n, m int
		want float64
	}{
		{50, 12, 0.5828}, // Phi^-1(0.72)
		{30, 6, 0.4307},  // s = 10: Phi^-1(2/3)
		{10, 0, 0},       // s = 6: p = 0.4, no room
	} {
		if got := ALIEZ(c.n, c.m); math.Abs(got-c.want) > 1e-3 {
			t.Errorf("ALIEZ(%d, %d) = %.4f, want %.4f", c.n, c.m, got, c.want)
		}
	}
}

// forge replaces the model and the claims as each attack says, and
// leaves the honest contribution it was given untouched.
func TestForgeClaimsAndModels(t *testing.T) {
	c := aggregate.Contribution{Params: []float32{1, -2}, DataSize: 10, Period: 30, DataConf: 0.5}
	for _, tc := range []struct {
		attack string
		p0     float32
		check  func(aggregate.Contribution) bool
	}{
		{AttackSignFlip, -1, func(f aggregate.Contribution) bool { return f.DataSize == 10 && f.Period == 30 }},
		{AttackScale, 100, func(f aggregate.Contribution) bool { return f.Params[1] == -200 }},
		{AttackLieSize, -1, func(f aggregate.Contribution) bool { return f.DataSize == 1<<40 }},
		{AttackLieConf, -1, func(f aggregate.Contribution) bool { return f.DataConf == 1 }},
		{AttackLiePeriod, -1, func(f aggregate.Contribution) bool { return f.Period == 1 }},
		{AttackLieHessian, -1, func(f aggregate.Contribution) bool { return len(f.Hessian) == 2 && f.Hessian[0] == 1e30 }},
		{AttackLieAll, 1, func(f aggregate.Contribution) bool { return f.DataSize == 1<<40 && f.Period == 1 && f.DataConf == 1 }},
	} {
		a := &Adversary{Attack: tc.attack, Byzantine: []bool{true}}
		f := a.forge(nil, nil, c)
		if f.Params[0] != tc.p0 || !tc.check(f) {
			t.Errorf("%s: forged %+v", tc.attack, f)
		}
	}
	if c.Params[0] != 1 || c.DataSize != 10 {
		t.Fatalf("forge changed its input: %+v", c)
	}
}
