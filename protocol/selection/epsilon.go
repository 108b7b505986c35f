package selection

import (
	"math"
	"math/rand/v2"

	"github.com/peerlearn/peerlearn/types/ident"
)

// EpsilonGreedy is Algorithm 3: Greedy's m_selected best, of which n_swap
// ~ Bin(m_selected, lambda^t * epsilon) are swapped out: n_swap random
// picks C_swap leave, and n_swap peers drawn at random from the rest of
// the sample together with C_swap take their place (so a swapped-out peer
// may be drawn back).
type EpsilonGreedy struct {
	cfg   Config
	swaps uint64
}

// Kind implements Policy.
func (*EpsilonGreedy) Kind() Kind { return KindEpsilonGreedy }

// Plan implements Policy: one evaluated sample of m_sample.
func (e *EpsilonGreedy) Plan(int) Plan { return Plan{Samples: 1, Size: e.cfg.Sampled, Evaluate: true} }

// Swaps returns the total n_swap drawn so far (exploration count).
func (e *EpsilonGreedy) Swaps() uint64 { return e.swaps }

// ExploreProb returns lambda^t * epsilon, the chance that one greedy pick
// is swapped at round t.
func (e *EpsilonGreedy) ExploreProb(t int) float64 {
	return math.Pow(e.cfg.Lambda, float64(t)) * e.cfg.Epsilon
}

// Select implements Policy: the greedy picks that stay (best first), then
// the n_swap drawn in.
func (e *EpsilonGreedy) Select(t int, samples [][]Candidate, rng *rand.Rand) ([]Candidate, error) {
	if err := begin(e.cfg.Self, t, samples, rng); err != nil {
		return nil, err
	}
	sampled := evaluated(union(samples))
	sel := best(sampled, e.cfg.Selected, e.cfg.Metric)
	p := e.ExploreProb(t)
	nswap := 0
	for range sel {
		if rng.Float64() < p {
			nswap++
		}
	}
	if nswap == 0 {
		return sel, nil
	}
	e.swaps += uint64(nswap)
	swap := pick(sel, nswap, rng)
	out := make(map[ident.Peer]bool, nswap)
	for _, c := range swap {
		out[c.ID] = true
	}
	in := make(map[ident.Peer]bool, len(sel))
	for _, c := range sel {
		in[c.ID] = true
	}
	var pop []Candidate // (C_sampled \ C_selected) ∪ C_swap, in sample order
	for _, c := range sampled {
		if !in[c.ID] || out[c.ID] {
			pop = append(pop, c)
		}
	}
	res := make([]Candidate, 0, len(sel))
	for _, c := range sel {
		if !out[c.ID] {
			res = append(res, c)
		}
	}
	return append(res, pick(pop, nswap, rng)...), nil
}

// Weights implements Policy: equal weights.
func (*EpsilonGreedy) Weights(_ float64, sel []Candidate) ([]float64, error) {
	return uniform(len(sel)), nil
}
