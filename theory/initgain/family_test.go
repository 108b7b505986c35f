package initgain

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peerlearn/peerlearn/theory/topology"
)

// The closed forms against the mean ‖v_steady‖ of generated graphs, n = 1024.
func TestFamiliesMatchGeneratedGraphs(t *testing.T) {
	const n = 1024
	cases := []struct {
		f     Family
		tol   float64
		seeds int
		gen   func(*rand.Rand) (*topology.Graph, error)
	}{
		{Regular{}, 1e-12, 2, func(r *rand.Rand) (*topology.Graph, error) { return topology.RandomRegular(n, 4, r) }},
		{ErdosRenyi{MeanDegree: 4}, 0.02, 10, func(r *rand.Rand) (*topology.Graph, error) {
			g, err := topology.ErdosRenyi(n, 4.0/(n-1), r)
			return g.LargestComponent(), err
		}},
		{BarabasiAlbert{M: 2}, 0.04, 20, func(r *rand.Rand) (*topology.Graph, error) { return topology.BarabasiAlbert(n, 2, r) }},
		{PowerLaw{Gamma: 3, KMin: 2}, 0.05, 40, func(r *rand.Rand) (*topology.Graph, error) {
			d, err := topology.PowerLawDegrees(n, 3, 2, r)
			if err != nil {
				return nil, err
			}
			g, err := topology.ConfigurationModel(d, r)
			return g.LargestComponent(), err
		}},
		{PowerLaw{Gamma: 2.5, KMin: 2}, 0.08, 40, func(r *rand.Rand) (*topology.Graph, error) {
			d, err := topology.PowerLawDegrees(n, 2.5, 2, r)
			if err != nil {
				return nil, err
			}
			g, err := topology.ConfigurationModel(d, r)
			return g.LargestComponent(), err
		}},
	}
	for _, c := range cases {
		measured, nodes := meanNorm(t, c.seeds, c.gen)
		approx, err := ApproxNorm(nodes, c.f)
		if err != nil {
			t.Fatalf("%v: %v", c.f, err)
		}
		if e := relErr(approx, measured); e > c.tol {
			t.Errorf("%v at n = %.0f: approx %.5f, measured %.5f (error %.3f > %.3f)", c.f, nodes, approx, measured, e, c.tol)
		}
		gain, _ := ApproxGain(nodes, c.f)
		if relErr(gain*approx, 1) > 1e-15 {
			t.Errorf("%v: ApproxGain %v is not 1/ApproxNorm %v", c.f, gain, approx)
		}
	}
}

// Apparent exponents between n = 64 and 4096: 1/2 for regular and ER,
// below 1/2 for BA (√(ln n/n)) and about (γ-2)/(γ-1) for power laws.
func TestFamilyExponents(t *testing.T) {
	slope := func(f Family) float64 {
		a, _ := f.Norm(64)
		b, _ := f.Norm(4096)
		return -math.Log(b/a) / math.Log(64)
	}
	for _, c := range []struct {
		f      Family
		lo, hi float64
	}{
		{Regular{}, 0.5 - 1e-12, 0.5 + 1e-12},
		{ErdosRenyi{MeanDegree: 4}, 0.5 - 1e-12, 0.5 + 1e-12},
		{BarabasiAlbert{M: 2}, 0.40, 0.47},
		{PowerLaw{Gamma: 2.5, KMin: 2}, 0.28, 0.38},
	} {
		if e := slope(c.f); e < c.lo || e > c.hi {
			t.Errorf("%v: apparent exponent %.4f outside [%v, %v]", c.f, e, c.lo, c.hi)
		}
	}
	// Dense ER (c → ∞) approaches the regular value.
	a, _ := ErdosRenyi{MeanDegree: 1e4}.Norm(1e6)
	if relErr(a, 1e-3) > 1e-4 {
		t.Errorf("dense ER norm %v, want ≈ 1/√n", a)
	}
}

func TestScalingLaw(t *testing.T) {
	if a, _ := (ScalingLaw{Alpha: 0.5}).Norm(400); relErr(a, 0.05) > 1e-15 {
		t.Errorf("n^-0.5 at 400 = %v", a)
	}
	if a, _ := (ScalingLaw{Alpha: 0.4, Prefactor: 2}).Norm(1e5); relErr(a, 2*math.Pow(1e5, -0.4)) > 1e-15 {
		t.Errorf("2·n^-0.4 = %v", a)
	}
}

func TestFamilyErrors(t *testing.T) {
	cases := map[string]error{}
	_, cases["n < 1"] = ApproxGain(0, Regular{})
	_, cases["n NaN"] = ApproxGain(math.NaN(), Regular{})
	_, cases["n +Inf"] = ApproxGain(math.Inf(1), Regular{})
	_, cases["nil family"] = ApproxGain(10, nil)
	_, cases["ER NaN"] = ApproxGain(10, ErdosRenyi{MeanDegree: math.NaN()})
	_, cases["BA M = 0"] = ApproxGain(10, BarabasiAlbert{})
	_, cases["BA M >= n"] = ApproxGain(3, BarabasiAlbert{M: 3})
	_, cases["PL gamma 2"] = ApproxGain(100, PowerLaw{Gamma: 2, KMin: 1})
	_, cases["PL kmin 0"] = ApproxGain(100, PowerLaw{Gamma: 2.5})
	_, cases["PL n too small"] = ApproxGain(3, PowerLaw{Gamma: 2.5, KMin: 2})
	_, cases["scaling NaN"] = ApproxGain(10, ScalingLaw{Alpha: math.NaN()})
	_, cases["scaling C < 0"] = ApproxGain(10, ScalingLaw{Alpha: 0.5, Prefactor: -1})
	for name, err := range cases {
		if !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
	if _, err := ApproxGain(100, ErdosRenyi{MeanDegree: 0.9}); !errors.Is(err, ErrNoGiantComponent) {
		t.Errorf("ER c = 0.9: %v, want ErrNoGiantComponent", err)
	}
	if _, err := ApproxGain(1000, PowerLaw{Gamma: 3.6, KMin: 1}); !errors.Is(err, ErrNoGiantComponent) {
		t.Errorf("PL γ = 3.6, kmin = 1: %v, want ErrNoGiantComponent", err)
	}
}
