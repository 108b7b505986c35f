package initgain

import (
	"math"

	"github.com/peerlearn/peerlearn/theory/topology"
)

// Mixing is a sparse row-stochastic aggregation matrix P: in one round
// node i replaces its parameters by Σ_k W[i][k]·x_{Nbrs[i][k]}, its own
// (i listed in Nbrs[i]) included if it keeps a share. Weights are >= 0
// and each row sums to 1. Any linear aggregation fits: DecAvg with data
// sizes (DecAvgMixing), Metropolis–Hastings, directed or weighted links
// (the extension in Sec. 4.3 of the paper).
type Mixing struct {
	Nbrs [][]int
	W    [][]float64
}

// DecAvgMixing returns DecAvg aggregation (Eq. (3) of the paper) on g:
// node i averages itself and its neighbours weighted by their data sizes,
// P_ij = |D_j| / (|D_i| + Σ_{l∈N(i)} |D_l|) for j ∈ N(i) ∪ {i}. A nil
// sizes means equal sizes, where P is the transpose of the paper's A'.
func DecAvgMixing(g *topology.Graph, sizes []float64) (Mixing, error) {
	if g == nil {
		return Mixing{}, errorf("nil graph")
	}
	n := g.N()
	if sizes != nil && len(sizes) != n {
		return Mixing{}, errorf("%d data sizes for %d nodes", len(sizes), n)
	}
	size := func(i int) float64 {
		if sizes == nil {
			return 1
		}
		return sizes[i]
	}
	for i := range sizes {
		if !(sizes[i] > 0) || math.IsInf(sizes[i], 0) {
			return Mixing{}, errorf("data size %v of node %d, want finite > 0", sizes[i], i)
		}
	}
	m := Mixing{Nbrs: make([][]int, n), W: make([][]float64, n)}
	for i := range n {
		nb := append([]int{i}, g.Neighbors(i)...)
		total := 0.0
		for _, j := range nb {
			total += size(j)
		}
		w := make([]float64, len(nb))
		for k, j := range nb {
			w[k] = size(j) / total
		}
		m.Nbrs[i], m.W[i] = nb, w
	}
	return m, nil
}

// check validates shapes, ranges and row sums (to within 1e-9).
func (m Mixing) check() error {
	n := len(m.Nbrs)
	if n == 0 || len(m.W) != n {
		return errorf("mixing with %d neighbour rows and %d weight rows", n, len(m.W))
	}
	for i := range n {
		if len(m.Nbrs[i]) != len(m.W[i]) {
			return errorf("mixing row %d: %d neighbours, %d weights", i, len(m.Nbrs[i]), len(m.W[i]))
		}
		sum := 0.0
		for k, j := range m.Nbrs[i] {
			w := m.W[i][k]
			if j < 0 || j >= n {
				return errorf("mixing row %d: node %d outside 0..%d", i, j, n-1)
			}
			if !(w >= 0) || math.IsInf(w, 0) {
				return errorf("mixing row %d: weight %v", i, w)
			}
			sum += w
		}
		if math.Abs(sum-1) > 1e-9 {
			return errorf("mixing row %d sums to %v, want 1", i, sum)
		}
	}
	return nil
}

// stronglyConnected reports whether every node reaches every other along
// positive weights (then the stationary vector is unique).
func (m Mixing) stronglyConnected() bool {
	n := len(m.Nbrs)
	fwd := make([][]int, n) // i -> j when j averages i (P_ji > 0)
	bwd := make([][]int, n)
	for i := range n {
		for k, j := range m.Nbrs[i] {
			if m.W[i][k] > 0 {
				fwd[j] = append(fwd[j], i)
				bwd[i] = append(bwd[i], j)
			}
		}
	}
	return reachesAll(fwd) && reachesAll(bwd)
}

// reachesAll reports whether BFS from node 0 over adj reaches every node.
func reachesAll(adj [][]int) bool {
	seen := make([]bool, len(adj))
	seen[0] = true
	queue := []int{0}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, v := range adj[u] {
			if !seen[v] {
				seen[v] = true
				queue = append(queue, v)
			}
		}
	}
	for _, s := range seen {
		if !s {
			return false
		}
	}
	return true
}

// MixingNorm returns ‖π‖ for the stationary distribution π of m (πP = π,
// Σπ = 1): repeated aggregation x ← Px drives every node to πᵀx₀, so
// i.i.d. initial parameters of spread σ end with spread σ‖π‖. It
// iterates the lazy chain π ← (π + πP)/2, which has the same π and
// converges even for periodic P, until the L1 change is below tol;
// ErrNotConverged after maxIter, ErrDisconnected unless m is strongly
// connected. A doubly stochastic P (Metropolis–Hastings) gives 1/√n.
func MixingNorm(m Mixing, tol float64, maxIter int) (float64, error) {
	if err := m.check(); err != nil {
		return 0, err
	}
	if !(tol > 0) || math.IsInf(tol, 0) || maxIter < 1 {
		return 0, errorf("tol = %v, maxIter = %d; want tol > 0, maxIter >= 1", tol, maxIter)
	}
	if !m.stronglyConnected() {
		return 0, wrapf(ErrDisconnected, "mixing matrix of %d nodes", len(m.Nbrs))
	}
	n := len(m.Nbrs)
	pi := make([]float64, n)
	next := make([]float64, n)
	for i := range pi {
		pi[i] = 1 / float64(n)
	}
	for range maxIter {
		for i := range next {
			next[i] = pi[i] / 2
		}
		for i, nb := range m.Nbrs {
			for k, j := range nb {
				next[j] += pi[i] * m.W[i][k] / 2
			}
		}
		sum, diff := 0.0, 0.0
		for i := range next {
			sum += next[i]
		}
		for i := range next {
			next[i] /= sum // cancels rounding drift only
			diff += math.Abs(next[i] - pi[i])
		}
		pi, next = next, pi
		if diff < tol {
			return norm2(pi), nil
		}
	}
	return 0, wrapf(ErrNotConverged, "stationary vector: %d iterations, tol %v", maxIter, tol)
}

// MixingGain returns 1/MixingNorm(m, tol, maxIter): the init gain when
// nodes aggregate with m instead of plain DecAvg.
func MixingGain(m Mixing, tol float64, maxIter int) (float64, error) {
	nrm, err := MixingNorm(m, tol, maxIter)
	if err != nil {
		return 0, err
	}
	return 1 / nrm, nil
}

// norm2 is the Euclidean norm.
func norm2(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}
