package dflsim

import (
	"github.com/peerlearn/peerlearn/engine/health"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Separation is how well the neighbourhood check's scores tell the
// attackers' models from the honest ones: over every checked peer and
// round, every pair of one attacker's and one honest neighbour's model
// it scored, Lower counts the pairs in which the attacker's model scored
// the lower balanced accuracy on the peer's data (a tie counts a half).
// Share is Lower / Pairs: 1 when the attackers' models always score
// worse, 0.5 when the scores cannot tell them apart, below 0.5 when
// the attackers' models score better (the check, when it narrows to the
// best-scoring neighbours, then trusts them first).
type Separation struct {
	Lower float64
	Pairs int
}

// Share is Lower / Pairs, and false without pairs.
func (s Separation) Share() (float64, bool) {
	if s.Pairs == 0 {
		return 0, false
	}
	return s.Lower / float64(s.Pairs), true
}

// Add pools another tally (another run's, another order's).
func (s Separation) Add(o Separation) Separation {
	return Separation{Lower: s.Lower + o.Lower, Pairs: s.Pairs + o.Pairs}
}

// separation tallies one peer's round: scores of the neighbours in nbrs
// (health.Balanced of their results; a result that does not score is
// skipped), hostile holding the attackers' IDs.
func separation(nbrs []health.Result, hostile map[ident.Peer]bool) Separation {
	var bad, good []float64
	for _, r := range nbrs {
		acc, err := health.Balanced(r.Correct, r.Total)
		if err != nil {
			continue
		}
		if hostile[r.Peer] {
			bad = append(bad, acc)
		} else {
			good = append(good, acc)
		}
	}
	var s Separation
	for _, b := range bad {
		for _, g := range good {
			s.Pairs++
			switch {
			case b < g:
				s.Lower++
			case b == g:
				s.Lower += 0.5
			}
		}
	}
	return s
}
