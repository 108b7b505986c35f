package topology

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x70901097)) }

func TestRandomRegular(t *testing.T) {
	for _, c := range []struct{ n, d int }{{10, 3}, {50, 4}, {300, 14}, {7, 6}, {5, 0}} {
		g, err := RandomRegular(c.n, c.d, seeded(1))
		if err != nil {
			t.Fatalf("RandomRegular(%d, %d): %v", c.n, c.d, err)
		}
		for u, d := range g.Degrees() {
			if d != c.d {
				t.Fatalf("RandomRegular(%d, %d): degree(%d) = %d", c.n, c.d, u, d)
			}
		}
		if g.M() != c.n*c.d/2 {
			t.Errorf("RandomRegular(%d, %d): %d edges", c.n, c.d, g.M())
		}
	}
	// d = n-1 forces the complete graph.
	if g, err := RandomRegular(6, 5, seeded(2)); err != nil || g.M() != 15 {
		t.Errorf("RandomRegular(6, 5) = %v edges, %v; want K6", g.M(), err)
	}
}

func TestRandomRegularDeterministicAndVaried(t *testing.T) {
	a, _ := RandomRegular(40, 4, seeded(7))
	b, _ := RandomRegular(40, 4, seeded(7))
	c, _ := RandomRegular(40, 4, seeded(8))
	if !slices.Equal(a.Edges(), b.Edges()) {
		t.Error("same seed gave different graphs")
	}
	if slices.Equal(a.Edges(), c.Edges()) {
		t.Error("different seeds gave the same graph")
	}
}

func TestRandomRegularRejects(t *testing.T) {
	for _, c := range []struct{ n, d int }{{0, 2}, {5, 3}, {5, 5}, {5, -2}} {
		if _, err := RandomRegular(c.n, c.d, seeded(1)); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("RandomRegular(%d, %d) error = %v", c.n, c.d, err)
		}
	}
	if _, err := RandomRegular(10, 4, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("nil rng error = %v", err)
	}
}

func TestErdosRenyiExtremes(t *testing.T) {
	g, err := ErdosRenyi(30, 0, seeded(1))
	if err != nil || g.M() != 0 {
		t.Errorf("G(30, 0): %d edges, %v", g.M(), err)
	}
	g, err = ErdosRenyi(30, 1, seeded(1))
	if err != nil || g.M() != 435 {
		t.Errorf("G(30, 1): %d edges, %v; want 435", g.M(), err)
	}
	for _, p := range []float64{-0.1, 1.1, math.NaN(), math.Inf(1)} {
		if _, err := ErdosRenyi(10, p, seeded(1)); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("p = %v error = %v", p, err)
		}
	}
	if _, err := ErdosRenyi(0, 0.5, seeded(1)); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("n = 0 error = %v", err)
	}
}

// Every pair must be an edge with frequency p: this checks the geometric
// skipping visits each pair exactly once.
func TestErdosRenyiPairFrequencies(t *testing.T) {
	const n, p, trials = 5, 0.3, 4000
	rng := seeded(3)
	count := map[[2]int]int{}
	for range trials {
		g, _ := ErdosRenyi(n, p, rng)
		for _, e := range g.Edges() {
			count[e]++
		}
	}
	sd := math.Sqrt(trials * p * (1 - p))
	for u := range n {
		for v := u + 1; v < n; v++ {
			if c := float64(count[[2]int{u, v}]); math.Abs(c-trials*p) > 5*sd {
				t.Errorf("pair (%d, %d): %v of %d, want about %v", u, v, c, trials, trials*p)
			}
		}
	}
	if len(count) != n*(n-1)/2 {
		t.Errorf("%d distinct pairs seen, want %d", len(count), n*(n-1)/2)
	}
}

func TestErdosRenyiEdgeCount(t *testing.T) {
	const n, p = 400, 0.05
	g, _ := ErdosRenyi(n, p, seeded(4))
	pairs := float64(n * (n - 1) / 2)
	if mean, sd := pairs*p, math.Sqrt(pairs*p*(1-p)); math.Abs(float64(g.M())-mean) > 5*sd {
		t.Errorf("G(%d, %v) has %d edges, want %.0f ± %.0f", n, p, g.M(), mean, 5*sd)
	}
}

func TestBarabasiAlbert(t *testing.T) {
	const n, m = 200, 3
	g, err := BarabasiAlbert(n, m, seeded(5))
	if err != nil {
		t.Fatal(err)
	}
	if g.M() != m*(n-m) {
		t.Errorf("%d edges, want %d", g.M(), m*(n-m))
	}
	if !g.Connected() {
		t.Error("BA graph disconnected")
	}
	deg := g.Degrees()
	if slices.Min(deg) != m {
		t.Errorf("min degree %d, want %d", slices.Min(deg), m)
	}
	// Preferential attachment makes hubs: far above the mean degree 6.
	if slices.Max(deg) < 20 {
		t.Errorf("max degree %d, want a hub of degree >= 20", slices.Max(deg))
	}
	for _, c := range []struct{ n, m int }{{5, 0}, {5, 5}, {0, 1}} {
		if _, err := BarabasiAlbert(c.n, c.m, seeded(1)); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("BarabasiAlbert(%d, %d) error = %v", c.n, c.m, err)
		}
	}
}

func TestConfigurationModel(t *testing.T) {
	deg := []int{3, 3, 2, 2, 1, 1, 0}
	for seed := range uint64(20) {
		g, err := ConfigurationModel(deg, seeded(seed))
		if err != nil {
			t.Fatal(err)
		}
		for u, d := range g.Degrees() {
			if d > deg[u] {
				t.Fatalf("node %d has degree %d > requested %d", u, d, deg[u])
			}
		}
	}
	for _, bad := range [][]int{{1, 1, 1}, {3, 1, 0}, {-1, 1}, nil} {
		if _, err := ConfigurationModel(bad, seeded(1)); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("ConfigurationModel(%v) error = %v", bad, err)
		}
	}
}

func TestPowerLawDegrees(t *testing.T) {
	const n = 2000
	deg, err := PowerLawDegrees(n, 2.5, 2, seeded(6))
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	twos := 0
	for _, k := range deg {
		if k < 2 || k > n-1 {
			t.Fatalf("degree %d outside 2..%d", k, n-1)
		}
		sum += k
		if k == 2 {
			twos++
		}
	}
	if sum%2 != 0 {
		t.Errorf("degree sum %d is odd", sum)
	}
	// P(k = 2) = 2^-2.5 / Σ_{k>=2} k^-2.5 ≈ 0.1768/0.3415 ≈ 0.518.
	if f := float64(twos) / n; math.Abs(f-0.518) > 0.05 {
		t.Errorf("fraction of degree 2 = %.3f, want ≈ 0.518", f)
	}
	for _, c := range []struct {
		gamma float64
		kmin  int
	}{{math.NaN(), 1}, {math.Inf(1), 1}, {0, 1}, {2.5, 0}, {2.5, n - 1}} {
		if _, err := PowerLawDegrees(n, c.gamma, c.kmin, seeded(1)); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("PowerLawDegrees(γ=%v, kmin=%d) error = %v", c.gamma, c.kmin, err)
		}
	}
}

func TestPowerLawConfiguration(t *testing.T) {
	g, err := PowerLawConfiguration(1000, 2.5, seeded(7))
	if err != nil {
		t.Fatal(err)
	}
	deg := g.Degrees()
	mean := 2 * float64(g.M()) / float64(g.N())
	if slices.Max(deg) < 10*int(mean) {
		t.Errorf("max degree %d, mean %.2f: want a heavy tail", slices.Max(deg), mean)
	}
	if _, err := PowerLawConfiguration(2, 2.5, seeded(1)); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("n = 2 error = %v", err)
	}
}
