package topology

import "slices"

// Graph is a simple undirected graph on nodes 0..N()-1: no self-loops, no
// multi-edges. Adjacency lists are kept sorted, so iteration order (and
// everything derived from it) is deterministic.
type Graph struct {
	adj [][]int
	m   int
}

// NewGraph returns the empty graph on n >= 1 nodes.
func NewGraph(n int) (*Graph, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	return newGraph(n), nil
}

func newGraph(n int) *Graph { return &Graph{adj: make([][]int, n)} }

func checkN(n int) error {
	if n < 1 {
		return errorf("n = %d, want n >= 1", n)
	}
	return nil
}

// N returns the number of nodes.
func (g *Graph) N() int { return len(g.adj) }

// M returns the number of (undirected) edges.
func (g *Graph) M() int { return g.m }

// Degree returns the number of neighbours of u.
func (g *Graph) Degree(u int) int { return len(g.adj[u]) }

// Degrees returns every node's degree.
func (g *Graph) Degrees() []int {
	d := make([]int, len(g.adj))
	for u, a := range g.adj {
		d[u] = len(a)
	}
	return d
}

// Neighbors returns u's neighbours in increasing order. The slice is the
// graph's own: do not modify it.
func (g *Graph) Neighbors(u int) []int { return g.adj[u] }

// HasEdge reports whether u and v are adjacent.
func (g *Graph) HasEdge(u, v int) bool {
	if u < 0 || v < 0 || u >= len(g.adj) || v >= len(g.adj) {
		return false
	}
	_, ok := slices.BinarySearch(g.adj[u], v)
	return ok
}

// AddEdge links u and v and reports whether the edge is new; adding an
// existing edge is a no-op. Self-loops and out-of-range nodes are errors.
func (g *Graph) AddEdge(u, v int) (bool, error) {
	n := len(g.adj)
	if u < 0 || v < 0 || u >= n || v >= n {
		return false, errorf("edge (%d, %d) outside 0..%d", u, v, n-1)
	}
	if u == v {
		return false, errorf("self-loop at %d", u)
	}
	return g.link(u, v), nil
}

// link adds the edge u-v (u != v, both in range) unless present.
func (g *Graph) link(u, v int) bool {
	i, ok := slices.BinarySearch(g.adj[u], v)
	if ok {
		return false
	}
	g.adj[u] = slices.Insert(g.adj[u], i, v)
	j, _ := slices.BinarySearch(g.adj[v], u)
	g.adj[v] = slices.Insert(g.adj[v], j, u)
	g.m++
	return true
}

// Edges returns every edge once, as (u, v) with u < v, in increasing order.
func (g *Graph) Edges() [][2]int {
	es := make([][2]int, 0, g.m)
	for u, a := range g.adj {
		for _, v := range a {
			if u < v {
				es = append(es, [2]int{u, v})
			}
		}
	}
	return es
}

// Clone returns an independent copy of g.
func (g *Graph) Clone() *Graph {
	c := &Graph{adj: make([][]int, len(g.adj)), m: g.m}
	for u, a := range g.adj {
		c.adj[u] = slices.Clone(a)
	}
	return c
}
