package topology

import "math/rand/v2"

// BarabasiAlbert returns a preferential-attachment graph (Barabási and
// Albert, 1999) on n nodes: it starts from m isolated nodes and adds nodes
// m..n-1 one by one, each linked to m distinct existing nodes chosen with
// probability proportional to their degree (the first added node links to
// all m seeds). It is connected, with m·(n-m) edges and a power-law degree
// tail p(k) ~ k^-3. Requires 1 <= m < n.
func BarabasiAlbert(n, m int, rng *rand.Rand) (*Graph, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	if m < 1 || m >= n {
		return nil, errorf("m = %d with n = %d, want 1 <= m < n", m, n)
	}
	if err := checkRNG(rng); err != nil {
		return nil, err
	}
	g := newGraph(n)
	// ends lists every edge endpoint, so a uniform pick from it is a
	// degree-proportional pick of a node.
	ends := make([]int, 0, 2*m*(n-m))
	targets := make([]int, m)
	for i := range targets {
		targets[i] = i
	}
	chosen := make(map[int]bool, m)
	for u := m; u < n; u++ {
		for _, t := range targets {
			g.link(u, t)
			ends = append(ends, u, t)
		}
		clear(chosen)
		targets = targets[:0]
		for len(targets) < m {
			t := ends[rng.IntN(len(ends))]
			if !chosen[t] {
				chosen[t] = true
				targets = append(targets, t)
			}
		}
	}
	return g, nil
}
