package initgain

import (
	"math"

	"github.com/peerlearn/peerlearn/theory/topology"
)

// maxExpectedNodes bounds Expected's O(n²) memory (32 MiB at 2048).
const maxExpectedNodes = 2048

// Expected returns the model's σ_an and σ_ap in expectation, without
// sampling: the square roots of the expected population variances. By
// Jensen E[σ] <= √E[σ²]; the gap is small unless a few slow modes carry
// the spread (σ_an on a BA graph after ~20 rounds: simulation ≈ 4% lower).
// After t rounds node i's parameters are Σ_k W0[·,k]·c_i(t)[k] plus noise,
// where c_i(t) is column i of A'^t, obtained by running the averaging on
// the identity (c_i(t+1) = (c_i(t) + Σ_{j∈N(i)} c_j(t))/(k_i+1)). With
// i.i.d. initial values and noise,
//
//	E σ_ap² at node i = (1 - 1/P)·(σ_init²‖c_i(t)‖² + σ_noise² Σ_{τ<t} ‖c_i(τ)‖²),
//	E σ_an²           = σ_init² F(t) + σ_noise² Σ_{τ<t} F(τ),
//	F(τ)              = (1/n) Σ_i ‖c_i(τ)‖² - ‖(1/n) Σ_i c_i(τ)‖²,
//
// P = Params; σ_ap is the mean over nodes of the per-node root. As t → ∞,
// c_i(t) → v_steady, so σ_ap → σ_init‖v_steady‖ (plus the noise term) and
// F → 0. Costs O(Rounds·n·(n+2m)) time and O(n²) memory; n <= 2048.
func (m SigmaModel) Expected(g *topology.Graph) ([]SigmaPoint, error) {
	if err := m.check(g); err != nil {
		return nil, err
	}
	n := g.N()
	if n > maxExpectedNodes {
		return nil, errorf("expected sigma model on %d nodes, at most %d", n, maxExpectedNodes)
	}
	c := make([]float64, n*n) // c[i*n:(i+1)*n] is c_i
	for i := range n {
		c[i*n+i] = 1
	}
	next := make([]float64, n*n)
	noiseAp := make([]float64, n) // Σ_{τ<t} ‖c_i(τ)‖²
	noiseAn := 0.0                // Σ_{τ<t} F(τ)
	fix := 1 - 1/float64(m.Params)
	si2, sn2 := m.SigmaInit*m.SigmaInit, m.SigmaNoise*m.SigmaNoise
	var out []SigmaPoint
	for t := 0; ; t++ {
		norms, f := columnStats(c, n)
		ap := 0.0
		for i := range n {
			ap += math.Sqrt(fix * (si2*norms[i] + sn2*noiseAp[i]))
		}
		out = append(out, SigmaPoint{t, math.Sqrt(max(si2*f+sn2*noiseAn, 0)), ap / float64(n)})
		if t == m.Rounds {
			return out, nil
		}
		for i := range n {
			noiseAp[i] += norms[i]
		}
		noiseAn += f
		for i := range n {
			row := next[i*n : (i+1)*n]
			copy(row, c[i*n:(i+1)*n])
			for _, j := range g.Neighbors(i) {
				src := c[j*n : (j+1)*n]
				for k := range row {
					row[k] += src[k]
				}
			}
			inv := 1 / float64(g.Degree(i)+1)
			for k := range row {
				row[k] *= inv
			}
		}
		c, next = next, c
	}
}

// columnStats returns ‖c_i‖² for every node and F = mean ‖c_i‖² - ‖mean c_i‖².
func columnStats(c []float64, n int) ([]float64, float64) {
	norms := make([]float64, n)
	mean := make([]float64, n)
	total := 0.0
	for i := range n {
		for k, x := range c[i*n : (i+1)*n] {
			norms[i] += x * x
			mean[k] += x
		}
		total += norms[i]
	}
	mm := 0.0
	for _, x := range mean {
		x /= float64(n)
		mm += x * x
	}
	return norms, total/float64(n) - mm
}
