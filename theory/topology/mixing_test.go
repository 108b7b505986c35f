package topology

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestMetropolisHastingsIsDoublyStochastic(t *testing.T) {
	g, _ := BarabasiAlbert(60, 2, seeded(21))
	w := MetropolisHastings(g)
	for i := range g.N() {
		row := 0.0
		for j := range g.N() {
			x := w.At(i, j)
			if x < 0 {
				t.Fatalf("W[%d,%d] = %v < 0", i, j, x)
			}
			if j != i && (x != 0) != g.HasEdge(i, j) {
				t.Fatalf("W[%d,%d] = %v but edge = %v", i, j, x, g.HasEdge(i, j))
			}
			row += x
		}
		if !near(row, 1, 1e-12) {
			t.Fatalf("row %d sums to %v", i, row)
		}
	}
	// An edge between degrees 2 and 5 weighs 1/6.
	for _, e := range g.Edges() {
		if want := 1 / float64(1+max(g.Degree(e[0]), g.Degree(e[1]))); w.At(e[0], e[1]) != want {
			t.Fatalf("W%v = %v, want %v", e, w.At(e[0], e[1]), want)
		}
	}
}

// Ring: W = (A + I)/3, eigenvalues (1 + 2cos(2πk/n))/3.
func TestMixingSpectrumRing(t *testing.T) {
	const n = 7
	g, _ := Ring(n)
	s, err := MixingSpectrum(g)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, n)
	for k := range n {
		want[k] = (1 + 2*math.Cos(2*math.Pi*float64(k)/n)) / 3
	}
	slices.Sort(want)
	for i := range want {
		if !near(s.Eigenvalues[i], want[i], 1e-12) {
			t.Fatalf("eigenvalues %v, want %v", s.Eigenvalues, want)
		}
	}
	if l := (1 + 2*math.Cos(2*math.Pi/n)) / 3; !near(s.Lambda, l, 1e-12) {
		t.Errorf("λ = %v, want %v", s.Lambda, l)
	}
}

func TestConvergenceFactorHandComputed(t *testing.T) {
	star, _ := NewGraph(4)
	for v := 1; v < 4; v++ {
		star.AddEdge(0, v)
	}
	ring4, _ := Ring(4)
	ring6, _ := Ring(6)
	k6, _ := Complete(6)
	one, _ := NewGraph(1)
	for _, c := range []struct {
		name      string
		g         *Graph
		lambda, c float64
	}{
		{"ring 6: λ = 2/3", ring6, 2.0 / 3, 9},
		// Eigenvalues 1, 1/3, 1/3, -1/3.
		{"ring 4: λ = 1/3", ring4, 1.0 / 3, 9.0 / 4},
		// Star K1,3: W_edge = 1/4, centre 1/4, leaves 3/4. Leaf vectors
		// summing to 0 give 3/4 (twice); the trace gives 0 for the last.
		{"star K1,3: λ = 3/4", star, 0.75, 16},
		{"K6: W = J/6", k6, 0, 1},
		{"single node", one, 0, 1},
	} {
		l, err := SLEM(c.g)
		if err != nil {
			t.Fatal(err)
		}
		cf, _ := ConvergenceFactor(c.g)
		if !near(l, c.lambda, 1e-12) || !near(cf, c.c, 1e-9) {
			t.Errorf("%s: λ = %v, c = %v; want %v, %v", c.name, l, cf, c.lambda, c.c)
		}
	}
}

func TestConvergenceFactorDisconnected(t *testing.T) {
	g := twoTriangles(t)
	s, err := MixingSpectrum(g)
	if err != nil {
		t.Fatal(err)
	}
	if s.Lambda != 1 || !math.IsInf(s.ConvergenceFactor(), 1) {
		t.Errorf("disconnected: λ = %v, c = %v; want 1, +Inf", s.Lambda, s.ConvergenceFactor())
	}
}

// For a d-regular graph W = (A + I)/(d+1), so λ(W) = max |μ+1|/(d+1) over
// the adjacency eigenvalues μ other than d.
func TestMixingSpectrumRegularMatchesAdjacency(t *testing.T) {
	const n, d = 60, 4
	g, _ := RandomRegular(n, d, seeded(22))
	a := mat.NewSymDense(n, nil)
	for _, e := range g.Edges() {
		a.SetSym(e[0], e[1], 1)
	}
	var es mat.EigenSym
	if !es.Factorize(a, false) {
		t.Fatal("adjacency eigendecomposition failed")
	}
	mu := es.Values(nil) // ascending; mu[n-1] = d
	want := max(math.Abs(mu[n-2]+1), math.Abs(mu[0]+1)) / (d + 1)
	l, err := SLEM(g)
	if err != nil {
		t.Fatal(err)
	}
	if !near(mu[n-1], d, 1e-9) || !near(l, want, 1e-9) {
		t.Errorf("λ(W) = %v, want %v (μ_max = %v)", l, want, mu[n-1])
	}
}
