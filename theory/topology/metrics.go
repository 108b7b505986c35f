package topology

// Metrics are the three topology metrics of the FedLay paper (Section
// II-B) plus degree statistics.
type Metrics struct {
	Nodes, Edges         int
	MinDegree, MaxDegree int
	MeanDegree           float64
	// Lambda is the second-largest eigenvalue modulus of the
	// Metropolis–Hastings matrix; ConvergenceFactor is 1/(1-Lambda)².
	Lambda, ConvergenceFactor float64
	// Diameter and AvgShortestPath are in hops.
	Diameter        int
	AvgShortestPath float64
}

// Evaluate measures g: one eigendecomposition (O(n³)) and an all-pairs
// BFS (O(n·(n+m))). A disconnected graph has no finite metrics:
// ErrDisconnected.
func Evaluate(g *Graph) (Metrics, error) {
	m := Metrics{Nodes: g.N(), Edges: g.M(), MinDegree: g.N(), MeanDegree: 2 * float64(g.M()) / float64(g.N())}
	for _, a := range g.adj {
		m.MinDegree = min(m.MinDegree, len(a))
		m.MaxDegree = max(m.MaxDegree, len(a))
	}
	ps, err := ShortestPaths(g) // first: it rejects disconnected graphs cheaply
	if err != nil {
		return Metrics{}, err
	}
	m.Diameter, m.AvgShortestPath = ps.Diameter, ps.Average
	sp, err := MixingSpectrum(g)
	if err != nil {
		return Metrics{}, err
	}
	m.Lambda, m.ConvergenceFactor = sp.Lambda, sp.ConvergenceFactor()
	return m, nil
}
