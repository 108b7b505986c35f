package topology

import "slices"

// Components returns the connected components, each as its nodes in
// increasing order, ordered by their smallest node.
func (g *Graph) Components() [][]int {
	n := g.N()
	seen := make([]bool, n)
	var comps [][]int
	for s := range n {
		if seen[s] {
			continue
		}
		seen[s] = true
		comp := []int{s}
		for i := 0; i < len(comp); i++ {
			for _, v := range g.adj[comp[i]] {
				if !seen[v] {
					seen[v] = true
					comp = append(comp, v)
				}
			}
		}
		slices.Sort(comp)
		comps = append(comps, comp)
	}
	return comps
}

// Connected reports whether every node can reach every other.
func (g *Graph) Connected() bool {
	if g.N() <= 1 {
		return true
	}
	_, reached := g.bfs(0, make([]int, g.N()), nil)
	return reached == g.N()
}

// Subgraph returns the subgraph induced by nodes (distinct, in range),
// relabelled 0..len(nodes)-1 in the given order.
func (g *Graph) Subgraph(nodes []int) (*Graph, error) {
	if err := checkN(len(nodes)); err != nil {
		return nil, err
	}
	index := make(map[int]int, len(nodes))
	for i, u := range nodes {
		if u < 0 || u >= g.N() {
			return nil, errorf("node %d outside 0..%d", u, g.N()-1)
		}
		if _, dup := index[u]; dup {
			return nil, errorf("node %d listed twice", u)
		}
		index[u] = i
	}
	s := newGraph(len(nodes))
	for i, u := range nodes {
		for _, v := range g.adj[u] {
			if j, ok := index[v]; ok && i < j {
				s.link(i, j)
			}
		}
	}
	return s, nil
}

// LargestComponent returns the subgraph induced by the largest connected
// component (the first one, by smallest node, among equals), relabelled in
// increasing node order. Useful before v_steady or path metrics on models
// that may be disconnected (sparse Erdős–Rényi, power-law configuration).
func (g *Graph) LargestComponent() *Graph {
	var best []int
	for _, c := range g.Components() {
		if len(c) > len(best) {
			best = c
		}
	}
	s, _ := g.Subgraph(best) // best is non-empty, distinct and in range
	return s
}
