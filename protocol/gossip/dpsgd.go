package gossip

import (
	"fmt"
	"math/bits"
)

// Weight is one entry of a mixing-matrix row: node Node's model counts W.
type Weight struct {
	Node int
	W    float64
}

// Schedule is a D-PSGD communication schedule over nodes 0..N()-1 (the
// caller maps indices to peers): round t's mixing matrix W(t), row by
// row, and who needs whose model.
type Schedule interface {
	// N is the number of nodes.
	N() int
	// Row returns W_i.(t): node i itself first, then the nodes it
	// receives from; the weights sum to 1.
	Row(i, t int) ([]Weight, error)
	// Recipients returns the nodes that need node i's model at round t.
	Recipients(i, t int) ([]int, error)
}

// StaticGraph is D-PSGD on a fixed undirected graph (the Plexus paper's
// 10-regular baseline: topology.RandomRegular(n, 10, rng)) with
// Metropolis-Hastings weights W_ij = 1/(1+max(d_i, d_j)) and W_ii the
// rest; on a k-regular graph every weight is 1/(k+1).
type StaticGraph struct{ G Graph }

// Graph is the undirected graph a StaticGraph runs on; *topology.Graph
// is one. gossip names only what it reads, so the protocol layer does not
// import the theory layer above it.
type Graph interface {
	N() int
	Degree(u int) int
	Neighbors(u int) []int
}

// N implements Schedule.
func (s StaticGraph) N() int { return s.G.N() }

// Row implements Schedule; t is ignored.
func (s StaticGraph) Row(i, t int) ([]Weight, error) {
	if err := checkNode(i, t, s.N()); err != nil {
		return nil, err
	}
	nb := s.G.Neighbors(i)
	row := make([]Weight, 1, len(nb)+1)
	self := 1.0
	for _, j := range nb {
		w := 1 / float64(1+max(s.G.Degree(i), s.G.Degree(j)))
		row = append(row, Weight{j, w})
		self -= w
	}
	row[0] = Weight{i, self}
	return row, nil
}

// Recipients implements Schedule: the graph neighbours.
func (s StaticGraph) Recipients(i, t int) ([]int, error) {
	if err := checkNode(i, t, s.N()); err != nil {
		return nil, err
	}
	return append([]int(nil), s.G.Neighbors(i)...), nil
}

// OnePeerExp is the one-peer exponential graph of Ying et al. (2021): with
// τ = ⌈log2 n⌉, at round t node i averages half-half with node
// i + 2^(t mod τ) (mod n) and sends its model to i - 2^(t mod τ), so
// every node sends and receives exactly one model per round and W(t) is
// doubly stochastic. (topology.OnePeerExponential is its undirected
// variant; use it through StaticGraph round by round for that one.)
type OnePeerExp struct{ Nodes int }

// N implements Schedule.
func (s OnePeerExp) N() int { return s.Nodes }

// OnePeerExpPeer returns the node that node i receives from at round t
// in an n-node one-peer exponential graph, i + 2^(t mod ⌈log2 n⌉) mod n
// (i itself when n = 1).
func OnePeerExpPeer(i, t, n int) (int, error) {
	if err := checkNode(i, t, n); err != nil {
		return 0, err
	}
	if n == 1 {
		return i, nil
	}
	return (i + hop(t, n)) % n, nil
}

// hop is 2^(t mod τ), τ = ⌈log2 n⌉, for n >= 2.
func hop(t, n int) int { return 1 << (t % bits.Len(uint(n-1))) }

// Row implements Schedule.
func (s OnePeerExp) Row(i, t int) ([]Weight, error) {
	j, err := OnePeerExpPeer(i, t, s.Nodes)
	if err != nil {
		return nil, err
	}
	if j == i {
		return []Weight{{i, 1}}, nil
	}
	return []Weight{{i, 0.5}, {j, 0.5}}, nil
}

// Recipients implements Schedule: the one node i - 2^(t mod τ).
func (s OnePeerExp) Recipients(i, t int) ([]int, error) {
	if err := checkNode(i, t, s.Nodes); err != nil {
		return nil, err
	}
	if s.Nodes == 1 {
		return nil, nil
	}
	return []int{(i - hop(t, s.Nodes) + s.Nodes) % s.Nodes}, nil
}

func checkNode(i, t, n int) error {
	if n < 1 || i < 0 || i >= n || t < 0 {
		return fmt.Errorf("%w: node %d of %d at round %d", ErrSchedule, i, n, t)
	}
	return nil
}

// MixInto writes into out one node's mixing step, sum_k row[k].W *
// model(row[k].Node), accumulated in float64; out may be one of the
// models. Every model must be as long as out.
func MixInto(out []float32, row []Weight, model func(node int) []float32) error {
	acc := make([]float64, len(out))
	for _, w := range row {
		x := model(w.Node)
		if len(x) != len(out) {
			return fmt.Errorf("%w: model of node %d has %d parameters, want %d", ErrSchedule, w.Node, len(x), len(out))
		}
		for j, v := range x {
			acc[j] += w.W * float64(v)
		}
	}
	for j, v := range acc {
		out[j] = float32(v)
	}
	return nil
}

// Mix runs round t's mixing step for every node of a simulation:
// out[i] = sum_j W_ij(t) models[j]. out[i] must not share memory with any
// model.
func Mix(s Schedule, t int, models, out [][]float32) error {
	if len(models) != s.N() || len(out) != s.N() {
		return fmt.Errorf("%w: %d models, %d outputs for %d nodes", ErrSchedule, len(models), len(out), s.N())
	}
	for i := range models {
		row, err := s.Row(i, t)
		if err != nil {
			return err
		}
		if err := MixInto(out[i], row, func(j int) []float32 { return models[j] }); err != nil {
			return err
		}
	}
	return nil
}
