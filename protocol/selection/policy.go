package selection

import (
	"fmt"
	"math/rand/v2"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Plan says what a policy needs from the caller for one round.
type Plan struct {
	// Samples is how many independent candidate samples to draw (0: none;
	// Select then picks from the policy's own pool, or nobody).
	Samples int
	// Size is the number of distinct candidates (never self) per sample.
	Size int
	// Evaluate: ask every candidate to evaluate our current model on its
	// training data (evalreq), and fill the Candidate reports.
	Evaluate bool
	// SelfEvaluate: measure our current model's accuracy on our own
	// validation set and pass it to Weights.
	SelfEvaluate bool
}

// Policy is one peer's neighbour selection. Implementations keep state
// across rounds (PENS) and are not safe for concurrent use.
type Policy interface {
	// Kind names the policy.
	Kind() Kind
	// Plan returns what round t (>= 1) needs.
	Plan(t int) Plan
	// Select returns the neighbours to average with at round t, given the
	// samples drawn for Plan(t), each candidate at most once per sample.
	// Every random choice draws from rng.
	Select(t int, samples [][]Candidate, rng *rand.Rand) ([]Candidate, error)
	// Weights returns the averaging weights of self (index 0) and of sel
	// (as returned by Select), normalised to sum 1. selfAccuracy is used
	// only when Plan asked for SelfEvaluate.
	Weights(selfAccuracy float64, sel []Candidate) ([]float64, error)
}

// New validates cfg and returns its policy. The concrete types (*PENS
// and so on) can be recovered with a type assertion.
func New(cfg Config) (Policy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	switch cfg.Kind {
	case KindLocal:
		return &Local{}, nil
	case KindRandom:
		return &Random{cfg: cfg}, nil
	case KindGreedy:
		return &Greedy{cfg: cfg}, nil
	case KindEpsilonGreedy:
		return &EpsilonGreedy{cfg: cfg}, nil
	case KindPENS:
		return newPENS(cfg), nil
	case KindRandomWeighted:
		return &RandomWeighted{cfg: cfg}, nil
	case KindOracle:
		return newOracle(cfg), nil
	}
	return nil, fmt.Errorf("%w: kind %v", ErrConfig, cfg.Kind)
}

// begin checks the arguments every Select shares.
func begin(self ident.Peer, t int, samples [][]Candidate, rng *rand.Rand) error {
	if t < 1 {
		return fmt.Errorf("%w: %d", ErrRound, t)
	}
	if rng == nil {
		return ErrRNG
	}
	for _, s := range samples {
		if err := checkSample(self, s); err != nil {
			return err
		}
	}
	return nil
}

// uniform returns n+1 equal weights: Algorithm 1's 1/(m_selected+1).
func uniform(n int) []float64 {
	w := make([]float64, n+1)
	for i := range w {
		w[i] = 1 / float64(n+1)
	}
	return w
}

// pick returns k elements of xs chosen uniformly without replacement, in
// the order drawn (all of xs, shuffled, when k >= len(xs)). xs is not
// modified.
func pick[T any](xs []T, k int, rng *rand.Rand) []T {
	c := append([]T(nil), xs...)
	k = min(k, len(c))
	for i := range k {
		j := i + rng.IntN(len(c)-i)
		c[i], c[j] = c[j], c[i]
	}
	return c[:k]
}
