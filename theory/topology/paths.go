package topology

import "fmt"

// bfs fills dist with hop counts from s (-1 for unreached) using queue as
// scratch (grown if nil), and returns the eccentricity of s within its
// component and how many nodes it reached.
func (g *Graph) bfs(s int, dist []int, queue []int) (ecc, reached int) {
	for i := range dist {
		dist[i] = -1
	}
	dist[s] = 0
	queue = append(queue[:0], s)
	for i := 0; i < len(queue); i++ {
		u := queue[i]
		for _, v := range g.adj[u] {
			if dist[v] < 0 {
				dist[v] = dist[u] + 1
				ecc = dist[v]
				queue = append(queue, v)
			}
		}
	}
	return ecc, len(queue)
}

// PathStats is the all-pairs shortest-path summary of a connected graph.
type PathStats struct {
	// Diameter is the longest shortest path, in hops.
	Diameter int
	// Average is the mean shortest-path length over all ordered pairs of
	// distinct nodes (0 for a single node).
	Average float64
}

// ShortestPaths runs a BFS from every node (O(n·(n+m))). A disconnected
// graph has no finite diameter: it returns ErrDisconnected.
func ShortestPaths(g *Graph) (PathStats, error) {
	n := g.N()
	dist := make([]int, n)
	queue := make([]int, 0, n)
	var st PathStats
	var total int64
	for s := range n {
		ecc, reached := g.bfs(s, dist, queue)
		if reached != n {
			return PathStats{}, fmt.Errorf("%w: node %d reaches %d of %d nodes", ErrDisconnected, s, reached, n)
		}
		st.Diameter = max(st.Diameter, ecc)
		for _, d := range dist {
			total += int64(d)
		}
	}
	if n > 1 {
		st.Average = float64(total) / float64(n*(n-1))
	}
	return st, nil
}

// Diameter is ShortestPaths(g).Diameter; ErrDisconnected if disconnected.
func Diameter(g *Graph) (int, error) {
	st, err := ShortestPaths(g)
	return st.Diameter, err
}

// AverageShortestPath is ShortestPaths(g).Average; ErrDisconnected if
// disconnected.
func AverageShortestPath(g *Graph) (float64, error) {
	st, err := ShortestPaths(g)
	return st.Average, err
}
