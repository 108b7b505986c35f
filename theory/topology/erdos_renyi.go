package topology

import (
	"math"
	"math/rand/v2"
)

// ErdosRenyi returns a G(n, p) random graph: each of the n(n-1)/2 pairs is
// an edge independently with probability p. It skips over non-edges with
// geometric jumps (Batagelj and Brandes, 2005), so it takes O(n + m) time.
// The graph may be disconnected (it is connected w.h.p. for
// p > (1+ε)·ln(n)/n).
func ErdosRenyi(n int, p float64, rng *rand.Rand) (*Graph, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	if err := checkProb("p", p); err != nil {
		return nil, err
	}
	if err := checkRNG(rng); err != nil {
		return nil, err
	}
	switch p {
	case 0:
		return newGraph(n), nil
	case 1:
		return Complete(n)
	}
	g := newGraph(n)
	lq := math.Log1p(-p)
	// Walk the pairs (v, w), w < v, in row-major order; each step skips a
	// Geometric(p) number of non-edges.
	v, w := 1, -1
	for v < n {
		skip := math.Floor(math.Log1p(-rng.Float64()) / lq)
		if skip > float64(n)*float64(n) { // beyond the last pair: done
			break
		}
		w += 1 + int(skip)
		for w >= v && v < n {
			w -= v
			v++
		}
		if v < n {
			g.link(v, w)
		}
	}
	return g, nil
}
