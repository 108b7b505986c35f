package topology

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// VSteady returns v_steady of the initialisation-gain paper: the
// stationary vector of A' = column-normalised (A + I), i.e.
// A'_ij = (A_ij + δ_ij)/(d_j + 1), normalised to sum 1. That matrix is
// DecAvg averaging (each node replaces its parameters by the mean over
// itself and its neighbours), and A'^t → v_steady·1ᵀ on a connected graph.
//
// For an undirected graph it has the closed form v_i = (d_i + 1)/Σ_j
// (d_j + 1): (A'·(d+1))_i = Σ_j (A_ij + δ_ij) = d_i + 1. VSteady returns
// that; StationaryVector computes the same vector by power iteration, as a
// check. On a disconnected graph the stationary vector is not unique and
// VSteady returns ErrDisconnected (take LargestComponent first).
func VSteady(g *Graph) ([]float64, error) {
	if !g.Connected() {
		return nil, wrapf(ErrDisconnected, "v_steady of %d nodes in %d components", g.N(), len(g.Components()))
	}
	v := make([]float64, g.N())
	total := float64(g.N() + 2*g.M())
	for u := range v {
		v[u] = float64(g.Degree(u)+1) / total
	}
	return v, nil
}

// VSteadyNorm returns ‖v_steady‖₂, the factor by which repeated DecAvg
// averaging shrinks the spread of i.i.d. initial parameters. It is 1/√n,
// its minimum, exactly for regular graphs.
func VSteadyNorm(g *Graph) (float64, error) {
	v, err := VSteady(g)
	if err != nil {
		return 0, err
	}
	return floats.Norm(v, 2), nil
}

// StationaryVector finds the stationary vector of A' (see VSteady) by
// power iteration v ← A'v from the uniform vector, stopping when the L1
// change falls below tol; each step costs O(n + m). Convergence is
// geometric in the second eigenvalue of A', so poorly mixing graphs (long
// rings) need many iterations: ErrNotConverged after maxIter.
// ErrDisconnected on a disconnected graph.
func StationaryVector(g *Graph, tol float64, maxIter int) ([]float64, error) {
	if !(tol > 0) || math.IsInf(tol, 0) {
		return nil, errorf("tol = %v, want a finite tol > 0", tol)
	}
	if maxIter < 1 {
		return nil, errorf("maxIter = %d, want >= 1", maxIter)
	}
	if !g.Connected() {
		return nil, wrapf(ErrDisconnected, "stationary vector of %d nodes", g.N())
	}
	n := g.N()
	v := make([]float64, n)
	for i := range v {
		v[i] = 1 / float64(n)
	}
	next := make([]float64, n)
	share := make([]float64, n)
	for range maxIter {
		for j := range share {
			share[j] = v[j] / float64(g.Degree(j)+1)
		}
		for i, a := range g.adj {
			s := share[i]
			for _, j := range a {
				s += share[j]
			}
			next[i] = s
		}
		floats.Scale(1/floats.Sum(next), next) // A' is column-stochastic; this only cancels rounding drift
		diff := floats.Distance(next, v, 1)
		v, next = next, v
		if diff < tol {
			return v, nil
		}
	}
	return nil, wrapf(ErrNotConverged, "stationary vector: %d iterations, tol %v", maxIter, tol)
}
