package initgain

import (
	"math"
	"math/rand/v2"

	"github.com/peerlearn/peerlearn/theory/topology"
)

// SigmaModel is the numeric model of early-stage DecAvg dynamics of
// Sec. 4.2 (Fig. 5c) of the paper. Each of the n nodes holds Params
// parameters drawn i.i.d. from N(0, SigmaInit²). Each round every node
// replaces its vector by the mean over itself and its neighbours (DecAvg
// with equal data sizes, W ← W·A' with A' of Eq. (4)) and then adds
// N(0, SigmaNoise²) to every parameter, standing in for local training.
// (Sec. 4.2 writes the mean over N_i; Eq. (3) and the closed form
// W_init·A'^t + Σ N_τ·A'^τ of Sec. 4.3 include the node itself, which is
// what is used here.)
//
// Per round it tracks, with population standard deviations (Fig. 1):
//   - σ_an: the standard deviation of one parameter across nodes,
//     averaged over parameters; it falls to the noise floor;
//   - σ_ap: the standard deviation of a node's parameters, averaged over
//     nodes; it levels off at SigmaInit·‖v_steady‖ (1/√n on regular
//     graphs) while tσ_noise² ≪ σ_init²/n.
type SigmaModel struct {
	Params                int
	Rounds                int
	SigmaInit, SigmaNoise float64
}

// SigmaPoint is σ_an and σ_ap after Round rounds (0 = initial draw).
type SigmaPoint struct {
	Round  int
	An, Ap float64
}

func (m SigmaModel) check(g *topology.Graph) error {
	if g == nil {
		return errorf("nil graph")
	}
	if m.Params < 2 || m.Rounds < 0 {
		return errorf("sigma model with %d params, %d rounds; want >= 2, >= 0", m.Params, m.Rounds)
	}
	if !(m.SigmaInit > 0) || !(m.SigmaNoise >= 0) || math.IsInf(m.SigmaInit, 0) || math.IsInf(m.SigmaNoise, 0) {
		return errorf("sigma model σ_init = %v, σ_noise = %v", m.SigmaInit, m.SigmaNoise)
	}
	return nil
}

// Simulate runs the model on g with randomness from rng and returns
// Rounds+1 points. It costs O(Rounds·Params·(n+2m)) time and O(n·Params)
// memory.
func (m SigmaModel) Simulate(g *topology.Graph, rng *rand.Rand) ([]SigmaPoint, error) {
	if err := m.check(g); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, errorf("nil rng")
	}
	n, d := g.N(), m.Params
	w := make([]float64, n*d) // node-major: node i is w[i*d : (i+1)*d]
	for i := range w {
		w[i] = m.SigmaInit * rng.NormFloat64()
	}
	next := make([]float64, n*d)
	out := []SigmaPoint{{0, sigmaAn(w, n, d), sigmaAp(w, n, d)}}
	for t := 1; t <= m.Rounds; t++ {
		for i := range n {
			row := next[i*d : (i+1)*d]
			copy(row, w[i*d:(i+1)*d])
			for _, j := range g.Neighbors(i) {
				src := w[j*d : (j+1)*d]
				for k := range row {
					row[k] += src[k]
				}
			}
			inv := 1 / float64(g.Degree(i)+1)
			for k := range row {
				row[k] = row[k]*inv + m.SigmaNoise*rng.NormFloat64()
			}
		}
		w, next = next, w
		out = append(out, SigmaPoint{t, sigmaAn(w, n, d), sigmaAp(w, n, d)})
	}
	return out, nil
}

// sigmaAn is the mean over parameters of their population standard
// deviation across the n nodes.
func sigmaAn(w []float64, n, d int) float64 {
	sum := make([]float64, d)
	sq := make([]float64, d)
	for i := range n {
		for k, x := range w[i*d : (i+1)*d] {
			sum[k] += x
			sq[k] += x * x
		}
	}
	total := 0.0
	for k := range d {
		mean := sum[k] / float64(n)
		total += math.Sqrt(max(sq[k]/float64(n)-mean*mean, 0))
	}
	return total / float64(d)
}

// sigmaAp is the mean over nodes of the population standard deviation of
// their d parameters.
func sigmaAp(w []float64, n, d int) float64 {
	total := 0.0
	for i := range n {
		var s, sq float64
		for _, x := range w[i*d : (i+1)*d] {
			s += x
			sq += x * x
		}
		mean := s / float64(d)
		total += math.Sqrt(max(sq/float64(d)-mean*mean, 0))
	}
	return total / float64(n)
}
