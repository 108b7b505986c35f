package initgain

import (
	"errors"
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/theory/topology"
)

func TestMixingNormDecAvgEqualSizesIsVSteady(t *testing.T) {
	ba, _ := topology.BarabasiAlbert(200, 2, seeded(7))
	m, err := DecAvgMixing(ba, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := MixingNorm(m, 1e-14, 100000)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := topology.VSteadyNorm(ba)
	if relErr(got, want) > 1e-9 {
		t.Errorf("DecAvg mixing ‖π‖ = %v, VSteadyNorm = %v", got, want)
	}
}

// With data sizes D, DecAvg (Eq. 3) has π_i ∝ D_i·S_i, S_i = D_i + Σ_{j∈N(i)} D_j:
// (πP)_j = Σ_{i∈N(j)∪{j}} c·D_i·S_i·D_j/S_i = c·D_j·S_j.
func TestMixingNormDecAvgWithDataSizes(t *testing.T) {
	g, _ := topology.RandomRegular(120, 4, seeded(8))
	rng := seeded(9)
	sizes := make([]float64, g.N())
	for i := range sizes {
		sizes[i] = 10 + 90*rng.Float64()
	}
	m, err := DecAvgMixing(g, sizes)
	if err != nil {
		t.Fatal(err)
	}
	got, err := MixingNorm(m, 1e-14, 100000)
	if err != nil {
		t.Fatal(err)
	}
	pi := make([]float64, g.N())
	total := 0.0
	for i := range pi {
		s := sizes[i]
		for _, j := range g.Neighbors(i) {
			s += sizes[j]
		}
		pi[i] = sizes[i] * s
		total += pi[i]
	}
	for i := range pi {
		pi[i] /= total
	}
	if want := norm2(pi); relErr(got, want) > 1e-9 {
		t.Errorf("‖π‖ = %v, closed form %v", got, want)
	}
	if got <= 1/math.Sqrt(float64(g.N())) {
		t.Errorf("unequal sizes on a regular graph: ‖π‖ = %v, want > 1/√n", got)
	}
}

// Metropolis–Hastings is doubly stochastic: π uniform, gain √n on any graph.
func TestMixingGainMetropolisHastingsIsSqrtN(t *testing.T) {
	ba, _ := topology.BarabasiAlbert(150, 2, seeded(10))
	w := topology.MetropolisHastings(ba)
	m := Mixing{Nbrs: make([][]int, ba.N()), W: make([][]float64, ba.N())}
	for i := range ba.N() {
		m.Nbrs[i] = append([]int{i}, ba.Neighbors(i)...)
		for _, j := range m.Nbrs[i] {
			m.W[i] = append(m.W[i], w.At(i, j))
		}
	}
	got, err := MixingGain(m, 1e-14, 100000)
	if err != nil || relErr(got, math.Sqrt(150)) > 1e-9 {
		t.Errorf("MH gain = %v, %v; want √150", got, err)
	}
}

// A periodic chain (swap two nodes, no self weight) still converges: the
// iteration is lazy.
func TestMixingNormPeriodicChain(t *testing.T) {
	m := Mixing{Nbrs: [][]int{{1}, {0}}, W: [][]float64{{1}, {1}}}
	got, err := MixingNorm(m, 1e-14, 1000)
	if err != nil || relErr(got, 1/math.Sqrt2) > 1e-12 {
		t.Errorf("2-cycle ‖π‖ = %v, %v; want 1/√2", got, err)
	}
}

func TestMixingErrors(t *testing.T) {
	// Node 1 averages node 0, but node 0 never listens to node 1: not
	// strongly connected, rejected.
	oneWay := Mixing{Nbrs: [][]int{{0}, {0, 1}}, W: [][]float64{{1}, {0.5, 0.5}}}
	if _, err := MixingNorm(oneWay, 1e-12, 1000); !errors.Is(err, ErrDisconnected) {
		t.Errorf("one-way chain: %v, want ErrDisconnected", err)
	}
	ring, _ := topology.Ring(400)
	slow, _ := DecAvgMixing(ring, nil)
	if _, err := MixingNorm(slow, 1e-15, 3); !errors.Is(err, ErrNotConverged) {
		t.Errorf("3 iterations on a long ring: %v, want ErrNotConverged", err)
	}
	bad := map[string]Mixing{
		"empty":         {},
		"ragged":        {Nbrs: [][]int{{0, 1}, {0}}, W: [][]float64{{1}, {1}}},
		"row sum":       {Nbrs: [][]int{{0, 1}, {0, 1}}, W: [][]float64{{0.5, 0.6}, {0.5, 0.5}}},
		"negative":      {Nbrs: [][]int{{0, 1}, {0, 1}}, W: [][]float64{{1.5, -0.5}, {0.5, 0.5}}},
		"out of range":  {Nbrs: [][]int{{0, 2}, {0, 1}}, W: [][]float64{{0.5, 0.5}, {0.5, 0.5}}},
		"missing row W": {Nbrs: [][]int{{0}, {1}}, W: [][]float64{{1}}},
	}
	for name, m := range bad {
		if _, err := MixingNorm(m, 1e-12, 10); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
	ok := Mixing{Nbrs: [][]int{{1}, {0}}, W: [][]float64{{1}, {1}}}
	if _, err := MixingNorm(ok, 0, 10); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("tol 0: %v", err)
	}
	g, _ := topology.Ring(5)
	if _, err := DecAvgMixing(g, []float64{1, 2}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("short sizes: %v", err)
	}
	if _, err := DecAvgMixing(g, []float64{1, 2, 0, 1, 1}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("zero size: %v", err)
	}
	if _, err := DecAvgMixing(nil, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("nil graph: %v", err)
	}
}
