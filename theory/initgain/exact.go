package initgain

import (
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/theory/topology"
)

// ExactGain returns 1/‖v_steady‖ for the communication graph g, where
// v_steady is the stationary vector of A' = column-normalised (A + I)
// (Eq. (4) of the paper), normalised to sum 1. v_steady is a property of
// the whole graph, so the gain is the same scalar at every node and for
// every layer: a node that knows g (or a sketch of it) multiplies its He
// weights by it. It is √n on a regular graph and smaller otherwise.
// A disconnected g has no unique v_steady: the error wraps both
// ErrDisconnected and topology.ErrDisconnected (take
// g.LargestComponent() first).
func ExactGain(g *topology.Graph) (float64, error) {
	if g == nil {
		return 0, errorf("nil graph")
	}
	nrm, err := topology.VSteadyNorm(g)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrDisconnected, err)
	}
	return 1 / nrm, nil
}

// ExactGainAdjacency is ExactGain for a graph given as adjacency lists,
// as a peer holds a sketch of the network: adj[u] lists u's neighbours
// among 0..len(adj)-1. Links are undirected; one listed in either
// direction counts, and repeats are ignored. Self-loops and out-of-range
// nodes are errors.
func ExactGainAdjacency(adj [][]int) (float64, error) {
	g, err := topology.NewGraph(len(adj))
	if err != nil {
		return 0, errorf("adjacency of %d nodes: %v", len(adj), err)
	}
	for u, nb := range adj {
		for _, v := range nb {
			if _, err := g.AddEdge(u, v); err != nil {
				return 0, errorf("adjacency: %v", err)
			}
		}
	}
	return ExactGain(g)
}

// GainFromDegrees returns 1/‖v_steady‖ from a degree sequence. On an
// undirected connected graph v_steady,i = (k_i+1)/Σ_j (k_j+1) (A' has
// column sums k_j+1 and (A'(k+1))_i = k_i+1), so
//
//	‖v_steady‖ = √(Σ (k_i+1)²) / Σ (k_i+1)
//
// depends on the degrees only. The result is exact when degrees is the
// full degree sequence of a connected graph; connectivity cannot be
// checked from degrees and is the caller's promise.
func GainFromDegrees(degrees []int) (float64, error) {
	if len(degrees) == 0 {
		return 0, errorf("empty degree sequence")
	}
	var s1, s2 float64
	for i, k := range degrees {
		if k < 0 {
			return 0, errorf("degree %d of node %d is negative", k, i)
		}
		x := float64(k) + 1
		s1 += x
		s2 += x * x
	}
	return s1 / math.Sqrt(s2), nil
}

// ApproxGainFromDegreeSample estimates the gain of an n-node connected
// graph from a sample of its degrees (say, polled by gossip), as Sec. 4.4
// suggests when the topology family is unknown: with the sample means
// ⟨k+1⟩ and ⟨(k+1)²⟩,
//
//	‖v_steady‖ ≈ √(⟨(k+1)²⟩/n) / ⟨k+1⟩,
//
// the degree formula of GainFromDegrees with sums replaced by n times the
// sample means. With heavy-tailed degrees a small sample misses the hubs
// and overestimates the gain.
func ApproxGainFromDegreeSample(nEstimate float64, sample []int) (float64, error) {
	if err := checkN(nEstimate); err != nil {
		return 0, err
	}
	g, err := GainFromDegrees(sample)
	if err != nil {
		return 0, err
	}
	// GainFromDegrees(sample) = m·⟨k+1⟩/√(m⟨(k+1)²⟩) for m = len(sample);
	// rescale √m to √n.
	return g * math.Sqrt(nEstimate/float64(len(sample))), nil
}
