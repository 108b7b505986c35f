package topology

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// MetropolisHastings returns the Metropolis–Hastings mixing matrix of g:
// W_ij = 1/(1 + max(d_i, d_j)) for every edge ij, W_ii = 1 - Σ_j W_ij, and
// 0 elsewhere. W is symmetric and doubly stochastic, with W_ii >=
// 1/(1+d_i) > 0, so its eigenvalues lie in (-1, 1].
func MetropolisHastings(g *Graph) *mat.SymDense {
	n := g.N()
	w := mat.NewSymDense(n, nil)
	for u, a := range g.adj {
		rest := 1.0
		for _, v := range a {
			x := 1 / float64(1+max(len(a), len(g.adj[v])))
			rest -= x
			if u < v {
				w.SetSym(u, v, x)
			}
		}
		w.SetSym(u, u, rest)
	}
	return w
}

// Spectrum is the spectral summary of g's Metropolis–Hastings matrix W.
type Spectrum struct {
	// Lambda is the second-largest eigenvalue modulus
	// λ = max(|λ_2(W)|, |λ_n(W)|): 1 for a disconnected graph, 0 for a
	// single node (no second eigenvalue) and for the complete graph.
	Lambda float64
	// Eigenvalues of W in increasing order.
	Eigenvalues []float64
}

// ConvergenceFactor is the paper's c_G = 1/(1-λ)²: 1 for the complete
// graph, +Inf for a disconnected one.
func (s Spectrum) ConvergenceFactor() float64 {
	if s.Lambda >= 1 {
		return math.Inf(1)
	}
	return 1 / ((1 - s.Lambda) * (1 - s.Lambda))
}

// MixingSpectrum diagonalises g's Metropolis–Hastings matrix (gonum's
// EigenSym, O(n³)). A disconnected graph has eigenvalue 1 at least twice;
// it is detected by BFS and reported as λ = 1 exactly rather than as the
// rounding-noise value the eigensolver would give.
func MixingSpectrum(g *Graph) (Spectrum, error) {
	var es mat.EigenSym
	if !es.Factorize(MetropolisHastings(g), false) {
		return Spectrum{}, wrapf(ErrEigen, "Metropolis–Hastings matrix of %d nodes", g.N())
	}
	ev := es.Values(nil) // ascending
	s := Spectrum{Eigenvalues: ev}
	switch n := len(ev); {
	case !g.Connected():
		s.Lambda = 1
	case n >= 2:
		// ev[n-1] is the eigenvalue 1 of the all-ones vector.
		s.Lambda = max(math.Abs(ev[n-2]), math.Abs(ev[0]))
	}
	return s, nil
}

// SLEM returns λ, the second-largest eigenvalue modulus of g's
// Metropolis–Hastings matrix (see Spectrum.Lambda).
func SLEM(g *Graph) (float64, error) {
	s, err := MixingSpectrum(g)
	return s.Lambda, err
}

// ConvergenceFactor returns c_G = 1/(1-λ)² of g's Metropolis–Hastings
// matrix (Section II-B of the FedLay paper): +Inf if g is disconnected.
func ConvergenceFactor(g *Graph) (float64, error) {
	s, err := MixingSpectrum(g)
	if err != nil {
		return 0, err
	}
	return s.ConvergenceFactor(), nil
}
