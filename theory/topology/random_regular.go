package topology

import "math/rand/v2"

// regularAttempts bounds the restarts of RandomRegular. One attempt
// succeeds with probability near 1 for d ≪ n, so reaching it means the
// parameters are (nearly) infeasible.
const regularAttempts = 1000

// RandomRegular returns a random simple d-regular graph on n nodes, using
// the pairing algorithm of Steger and Wormald (1999) as in networkx: shuffle
// the n·d half-edges ("stubs"), pair them up, keep every pair that is
// neither a self-loop nor a repeated edge and re-pair only the rejected
// stubs; restart from scratch if the leftover stubs admit no valid pair.
// Unlike plain rejection of the whole pairing (whose success probability
// is about exp(-(d²-1)/4), hopeless for d >= 8) this almost never
// restarts, and its output is asymptotically uniform for d ≪ n^(1/28).
// Requires 0 <= d < n and n·d even.
func RandomRegular(n, d int, rng *rand.Rand) (*Graph, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	if d < 0 || d >= n || n*d%2 != 0 {
		return nil, errorf("d = %d with n = %d, want 0 <= d < n and n·d even", d, n)
	}
	if err := checkRNG(rng); err != nil {
		return nil, err
	}
	for range regularAttempts {
		if g := tryRegular(n, d, rng); g != nil {
			return g, nil
		}
	}
	return nil, wrapf(ErrGenerationFailed, "no %d-regular graph on %d nodes after %d attempts", d, n, regularAttempts)
}

// tryRegular is one attempt of RandomRegular; nil means restart.
func tryRegular(n, d int, rng *rand.Rand) *Graph {
	g := newGraph(n)
	stubs := make([]int, 0, n*d)
	for u := range n {
		for range d {
			stubs = append(stubs, u)
		}
	}
	var rejected []int
	for len(stubs) > 0 {
		rng.Shuffle(len(stubs), func(i, j int) { stubs[i], stubs[j] = stubs[j], stubs[i] })
		rejected = rejected[:0]
		for i := 0; i+1 < len(stubs); i += 2 {
			u, v := stubs[i], stubs[i+1]
			if u == v || !g.link(u, v) {
				rejected = append(rejected, u, v)
			}
		}
		if !pairable(g, rejected) {
			return nil
		}
		stubs = append(stubs[:0], rejected...)
	}
	return g
}

// pairable reports whether the leftover stubs contain two distinct,
// non-adjacent nodes (vacuously true when none are left).
func pairable(g *Graph, stubs []int) bool {
	if len(stubs) == 0 {
		return true
	}
	for i, u := range stubs {
		for _, v := range stubs[i+1:] {
			if u != v && !g.HasEdge(u, v) {
				return true
			}
		}
	}
	return false
}
