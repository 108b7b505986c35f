package initgain

import (
	"errors"
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/theory/topology"
)

func TestExactGainStarAndRegular(t *testing.T) {
	// Star on 4 nodes: d+1 = 4, 2, 2, 2, v = (0.4, 0.2, 0.2, 0.2), ‖v‖² = 0.28.
	g, err := ExactGainAdjacency([][]int{{1, 2, 3}, {0}, {0}, {0}})
	if err != nil || relErr(g, 1/math.Sqrt(0.28)) > 1e-15 {
		t.Fatalf("star gain = %v, %v; want 1/√0.28", g, err)
	}
	rr, _ := topology.RandomRegular(100, 4, seeded(1))
	if g, _ := ExactGain(rr); relErr(g, 10) > 1e-14 {
		t.Errorf("4-regular n=100 gain = %v, want √100", g)
	}
	ba, _ := topology.BarabasiAlbert(500, 2, seeded(2))
	if g, _ := ExactGain(ba); !(g > 1 && g < math.Sqrt(500)) {
		t.Errorf("BA gain = %v, want in (1, √n) (strictly below √n off regular graphs)", g)
	}
}

func TestExactGainAgreesWithDegreeFormula(t *testing.T) {
	ba, _ := topology.BarabasiAlbert(300, 3, seeded(3))
	er, _ := topology.ErdosRenyi(300, 0.02, seeded(4))
	for name, g := range map[string]*topology.Graph{"BA": ba, "ER giant": er.LargestComponent()} {
		exact, err := ExactGain(g)
		if err != nil {
			t.Fatal(err)
		}
		fromDeg, _ := GainFromDegrees(g.Degrees())
		adj := make([][]int, g.N())
		for u := range adj {
			adj[u] = g.Neighbors(u)
		}
		fromAdj, _ := ExactGainAdjacency(adj)
		full, _ := ApproxGainFromDegreeSample(float64(g.N()), g.Degrees())
		for what, x := range map[string]float64{"degrees": fromDeg, "adjacency": fromAdj, "full sample": full} {
			if relErr(x, exact) > 1e-12 {
				t.Errorf("%s: gain from %s = %v, ExactGain = %v", name, what, x, exact)
			}
		}
	}
}

func TestApproxGainFromDegreeSample(t *testing.T) {
	er, _ := topology.ErdosRenyi(4000, 8.0/3999, seeded(5))
	g := er.LargestComponent()
	exact, _ := ExactGain(g)
	rng := seeded(6)
	sample := make([]int, 300)
	for i := range sample {
		sample[i] = g.Degree(rng.IntN(g.N()))
	}
	got, err := ApproxGainFromDegreeSample(float64(g.N()), sample)
	if err != nil || relErr(got, exact) > 0.03 {
		t.Errorf("ER gain from 300 sampled degrees = %v, %v; exact %v", got, err, exact)
	}
}

func TestExactGainErrors(t *testing.T) {
	two, _ := topology.NewGraph(6)
	for _, e := range [][2]int{{0, 1}, {1, 2}, {0, 2}, {3, 4}, {4, 5}, {3, 5}} {
		two.AddEdge(e[0], e[1])
	}
	_, err := ExactGain(two)
	if !errors.Is(err, ErrDisconnected) || !errors.Is(err, topology.ErrDisconnected) {
		t.Errorf("two triangles: %v, want ErrDisconnected (both packages')", err)
	}
	cases := map[string]error{}
	_, cases["nil graph"] = ExactGain(nil)
	_, cases["no nodes"] = ExactGainAdjacency(nil)
	_, cases["self-loop"] = ExactGainAdjacency([][]int{{0}})
	_, cases["out of range"] = ExactGainAdjacency([][]int{{5}, {}})
	_, cases["no degrees"] = GainFromDegrees(nil)
	_, cases["negative degree"] = GainFromDegrees([]int{1, -1})
	_, cases["n < 1"] = ApproxGainFromDegreeSample(0.5, []int{2, 2})
	_, cases["NaN n"] = ApproxGainFromDegreeSample(math.NaN(), []int{2, 2})
	for name, err := range cases {
		if !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
}
