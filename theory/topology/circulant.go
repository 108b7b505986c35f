package topology

import "math/bits"

// Circulant returns the circulant graph on n nodes: node i is linked to
// i ± o (mod n) for every offset o, 1 <= o <= n-1. Offsets that land on the
// same pair are merged, so the graph stays simple.
func Circulant(n int, offsets []int) (*Graph, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	for _, o := range offsets {
		if o < 1 || o >= n {
			return nil, errorf("offset %d outside 1..%d", o, n-1)
		}
	}
	g := newGraph(n)
	for _, o := range offsets {
		for i := range n {
			g.link(i, (i+o)%n)
		}
	}
	return g, nil
}

// Ring returns the cycle on n nodes (for n = 2 a single edge, for n = 1 no
// edge): degree 2, diameter ⌊n/2⌋.
func Ring(n int) (*Graph, error) {
	if n == 1 {
		return newGraph(1), nil
	}
	return Circulant(n, []int{1})
}

// RingLattice returns the k-regular ring lattice (the Watts–Strogatz base
// graph): each node linked to its k/2 nearest nodes on either side. k must
// be even with 0 <= k < n.
func RingLattice(n, k int) (*Graph, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	if k < 0 || k%2 != 0 || k >= n {
		return nil, errorf("k = %d, want even 0 <= k < n = %d", k, n)
	}
	offs := make([]int, k/2)
	for i := range offs {
		offs[i] = i + 1
	}
	return Circulant(n, offs)
}

// Chord returns the undirected Chord finger graph: node i is linked to
// i + 2^k (mod n) for every 2^k < n, and so to i - 2^k as well. Its
// degree is about 2·log2(n) (less where fingers coincide, e.g. ±n/2).
func Chord(n int) (*Graph, error) {
	if n == 1 {
		return newGraph(1), nil
	}
	var offs []int
	for o := 1; o < n; o *= 2 {
		offs = append(offs, o)
	}
	return Circulant(n, offs)
}

// OnePeerExponential returns round t of the one-peer exponential graph
// (Ying et al., 2021) made undirected: with τ = ⌈log2 n⌉, node i is linked
// to i ± 2^(t mod τ) (mod n). Each round has degree at most 2; τ
// consecutive rounds together form Chord(n).
func OnePeerExponential(n, t int) (*Graph, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	if t < 0 {
		return nil, errorf("t = %d, want t >= 0", t)
	}
	if n == 1 {
		return newGraph(1), nil
	}
	tau := bits.Len(uint(n - 1)) // ⌈log2 n⌉ for n >= 2
	return Circulant(n, []int{1 << (t % tau)})
}

// Complete returns the complete graph K_n.
func Complete(n int) (*Graph, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	g := newGraph(n)
	for u := range n {
		g.adj[u] = make([]int, 0, n-1)
		for v := range n {
			if v != u {
				g.adj[u] = append(g.adj[u], v)
			}
		}
	}
	g.m = n * (n - 1) / 2
	return g, nil
}
