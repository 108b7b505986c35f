package selection

import (
	"bytes"
	"math/rand/v2"
	"slices"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Oracle is the upper baseline: Random, but only among the peers of our
// own true cluster (Config.Clusters).
type Oracle struct {
	cfg  Config
	pool []ident.Peer // our cluster without self, sorted
}

func newOracle(cfg Config) *Oracle {
	mine := cfg.Clusters[cfg.Self]
	o := &Oracle{cfg: cfg}
	for id, c := range cfg.Clusters {
		if c == mine && id != cfg.Self {
			o.pool = append(o.pool, id)
		}
	}
	slices.SortFunc(o.pool, func(a, b ident.Peer) int { return bytes.Compare(a[:], b[:]) })
	return o
}

// Kind implements Policy.
func (*Oracle) Kind() Kind { return KindOracle }

// Plan implements Policy: the pool is known, nothing to sample.
func (*Oracle) Plan(int) Plan { return Plan{} }

// Select implements Policy: m_selected peers of our cluster at random.
func (o *Oracle) Select(t int, samples [][]Candidate, rng *rand.Rand) ([]Candidate, error) {
	if err := begin(o.cfg.Self, t, samples, rng); err != nil {
		return nil, err
	}
	ids := pick(o.pool, o.cfg.Selected, rng)
	out := make([]Candidate, len(ids))
	for i, id := range ids {
		out[i] = Candidate{ID: id}
	}
	return out, nil
}

// Weights implements Policy: equal weights.
func (*Oracle) Weights(_ float64, sel []Candidate) ([]float64, error) { return uniform(len(sel)), nil }
