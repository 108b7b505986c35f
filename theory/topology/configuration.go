package topology

import (
	"math"
	"math/rand/v2"
	"sort"
)

// ConfigurationModel returns the erased configuration model for a degree
// sequence: every node u gets degrees[u] half-edges, the half-edges are
// paired uniformly at random, and then self-loops are dropped and
// multi-edges merged. The result is simple, so realised degrees can fall
// below the requested ones (mostly at hubs, for heavy-tailed sequences).
// Degrees must lie in 0..n-1 and sum to an even number.
func ConfigurationModel(degrees []int, rng *rand.Rand) (*Graph, error) {
	n := len(degrees)
	if err := checkN(n); err != nil {
		return nil, err
	}
	if err := checkRNG(rng); err != nil {
		return nil, err
	}
	sum := 0
	for u, k := range degrees {
		if k < 0 || k >= n {
			return nil, errorf("degree %d of node %d outside 0..%d", k, u, n-1)
		}
		sum += k
	}
	if sum%2 != 0 {
		return nil, errorf("degree sum %d is odd", sum)
	}
	stubs := make([]int, 0, sum)
	for u, k := range degrees {
		for range k {
			stubs = append(stubs, u)
		}
	}
	rng.Shuffle(len(stubs), func(i, j int) { stubs[i], stubs[j] = stubs[j], stubs[i] })
	g := newGraph(n)
	for i := 0; i+1 < len(stubs); i += 2 {
		if u, v := stubs[i], stubs[i+1]; u != v {
			g.link(u, v)
		}
	}
	return g, nil
}

// PowerLawDegrees draws n degrees i.i.d. from the truncated discrete power
// law p(k) ∝ k^-γ, kmin <= k <= n-1. If their sum is odd, one uniformly
// chosen node's degree is redrawn until it is even (so the sequence is
// graphical-parity, as the configuration model needs). Requires γ finite
// and > 0, 1 <= kmin < n-1.
func PowerLawDegrees(n int, gamma float64, kmin int, rng *rand.Rand) ([]int, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	if err := checkFinite("gamma", gamma); err != nil {
		return nil, err
	}
	if gamma <= 0 {
		return nil, errorf("gamma = %v, want gamma > 0", gamma)
	}
	if kmin < 1 || kmin >= n-1 {
		return nil, errorf("kmin = %d with n = %d, want 1 <= kmin < n-1", kmin, n)
	}
	if err := checkRNG(rng); err != nil {
		return nil, err
	}
	kmax := n - 1
	cdf := make([]float64, kmax-kmin+1)
	acc := 0.0
	for k := kmin; k <= kmax; k++ {
		acc += math.Pow(float64(k), -gamma)
		cdf[k-kmin] = acc
	}
	draw := func() int {
		r := rng.Float64() * acc
		return kmin + min(sort.SearchFloat64s(cdf, r), len(cdf)-1)
	}
	deg := make([]int, n)
	sum := 0
	for u := range deg {
		deg[u] = draw()
		sum += deg[u]
	}
	if sum%2 != 0 {
		u := rng.IntN(n)
		old := deg[u]
		for deg[u]%2 == old%2 { // kmin < kmax, so both parities occur
			deg[u] = draw()
		}
	}
	return deg, nil
}

// PowerLawConfiguration returns an erased configuration-model graph
// (ConfigurationModel) whose degree sequence is drawn from the power law
// p(k) ∝ k^-γ on 1 <= k <= n-1 (PowerLawDegrees with kmin = 1). After
// self-loops and multi-edges are removed the graph is simple but, with
// many degree-1 nodes, usually disconnected: use LargestComponent before
// path metrics or VSteady. For another minimum degree compose
// PowerLawDegrees and ConfigurationModel. Requires n >= 3.
func PowerLawConfiguration(n int, gamma float64, rng *rand.Rand) (*Graph, error) {
	deg, err := PowerLawDegrees(n, gamma, 1, rng)
	if err != nil {
		return nil, err
	}
	return ConfigurationModel(deg, rng)
}
