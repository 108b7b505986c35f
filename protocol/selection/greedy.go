package selection

import (
	"bytes"
	"math/rand/v2"
	"slices"
)

// Greedy is Algorithm 2: sample m_sample peers, have each evaluate our
// model on its training data, and average (equal weights) with the
// m_selected that report the best Metric.
type Greedy struct{ cfg Config }

// Kind implements Policy.
func (*Greedy) Kind() Kind { return KindGreedy }

// Plan implements Policy: one evaluated sample of m_sample.
func (g *Greedy) Plan(int) Plan { return Plan{Samples: 1, Size: g.cfg.Sampled, Evaluate: true} }

// Select implements Policy: the m_selected best evaluated candidates, best
// first (fewer if fewer were evaluated).
func (g *Greedy) Select(t int, samples [][]Candidate, rng *rand.Rand) ([]Candidate, error) {
	if err := begin(g.cfg.Self, t, samples, rng); err != nil {
		return nil, err
	}
	return best(evaluated(union(samples)), g.cfg.Selected, g.cfg.Metric), nil
}

// Weights implements Policy: equal weights.
func (*Greedy) Weights(_ float64, sel []Candidate) ([]float64, error) { return uniform(len(sel)), nil }

// best returns the m best of the evaluated candidates cs by metric (loss
// ascending or accuracy descending), ties broken by the other metric, then
// by ID, so the result does not depend on the candidates' order.
func best(cs []Candidate, m int, metric Metric) []Candidate {
	r := append([]Candidate(nil), cs...)
	slices.SortFunc(r, func(a, b Candidate) int {
		la, lb, aa, ab := a.Loss, b.Loss, a.Accuracy, b.Accuracy
		if metric == MetricAccuracy {
			la, lb, aa, ab = -a.Accuracy, -b.Accuracy, -a.Loss, -b.Loss
		}
		switch {
		case la < lb:
			return -1
		case la > lb:
			return 1
		case aa > ab:
			return -1
		case aa < ab:
			return 1
		}
		return bytes.Compare(a.ID[:], b.ID[:])
	})
	return r[:min(m, len(r))]
}
