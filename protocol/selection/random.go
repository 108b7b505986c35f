package selection

import (
	"math/rand/v2"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Local is the no-federation baseline: it never selects anyone.
type Local struct{}

// Kind implements Policy.
func (*Local) Kind() Kind { return KindLocal }

// Plan implements Policy: nothing to sample.
func (*Local) Plan(int) Plan { return Plan{} }

// Select implements Policy: no neighbours.
func (*Local) Select(t int, samples [][]Candidate, rng *rand.Rand) ([]Candidate, error) {
	return nil, begin(ident.Peer{}, t, samples, rng)
}

// Weights implements Policy: self only.
func (*Local) Weights(_ float64, sel []Candidate) ([]float64, error) { return uniform(len(sel)), nil }

// Random is Algorithm 1: m_selected peers drawn uniformly at random each
// round, averaged with equal weights 1/(m_selected+1).
type Random struct{ cfg Config }

// Kind implements Policy.
func (*Random) Kind() Kind { return KindRandom }

// Plan implements Policy: one sample of m_selected, no evaluation.
func (r *Random) Plan(int) Plan { return Plan{Samples: 1, Size: r.cfg.Selected} }

// Select implements Policy: m_selected candidates uniformly at random
// from all samples given (all of them if fewer), evaluated or not.
func (r *Random) Select(t int, samples [][]Candidate, rng *rand.Rand) ([]Candidate, error) {
	if err := begin(r.cfg.Self, t, samples, rng); err != nil {
		return nil, err
	}
	return pick(union(samples), r.cfg.Selected, rng), nil
}

// Weights implements Policy: equal weights.
func (*Random) Weights(_ float64, sel []Candidate) ([]float64, error) { return uniform(len(sel)), nil }

// union concatenates the samples, keeping the first occurrence of a peer.
func union(samples [][]Candidate) []Candidate {
	if len(samples) == 1 {
		return samples[0]
	}
	var out []Candidate
	seen := map[ident.Peer]bool{}
	for _, s := range samples {
		for _, c := range s {
			if !seen[c.ID] {
				seen[c.ID] = true
				out = append(out, c)
			}
		}
	}
	return out
}
