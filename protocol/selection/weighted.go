package selection

import (
	"fmt"
	"math/rand/v2"
)

// RandomWeighted is Algorithm 5: m_selected random peers, each asked to
// evaluate our model; the average weighs every model by the accuracy it
// scored: w = sum_j a_j w_j / sum_j a_j, with a_self our model's accuracy
// on our own validation set.
type RandomWeighted struct{ cfg Config }

// Kind implements Policy.
func (*RandomWeighted) Kind() Kind { return KindRandomWeighted }

// Plan implements Policy: one evaluated sample of m_selected, and our own
// validation accuracy.
func (r *RandomWeighted) Plan(int) Plan {
	return Plan{Samples: 1, Size: r.cfg.Selected, Evaluate: true, SelfEvaluate: true}
}

// Select implements Policy: m_selected of the evaluated candidates,
// uniformly at random (all of them if fewer).
func (r *RandomWeighted) Select(t int, samples [][]Candidate, rng *rand.Rand) ([]Candidate, error) {
	if err := begin(r.cfg.Self, t, samples, rng); err != nil {
		return nil, err
	}
	return pick(evaluated(union(samples)), r.cfg.Selected, rng), nil
}

// Weights implements Policy: accuracies normalised to sum 1 (Algorithm 5,
// line 17); equal weights when every accuracy is 0.
func (r *RandomWeighted) Weights(selfAccuracy float64, sel []Candidate) ([]float64, error) {
	w := make([]float64, 0, len(sel)+1)
	w = append(w, selfAccuracy)
	for _, c := range sel {
		if !c.Evaluated {
			return nil, fmt.Errorf("%w: %v was not evaluated", ErrWeights, c.ID)
		}
		w = append(w, c.Accuracy)
	}
	var sum float64
	for _, a := range w {
		if !(a >= 0 && a <= 1) {
			return nil, fmt.Errorf("%w: accuracy %v", ErrWeights, a)
		}
		sum += a
	}
	if sum == 0 {
		return uniform(len(sel)), nil
	}
	for i := range w {
		w[i] /= sum
	}
	return w, nil
}
