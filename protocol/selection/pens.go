package selection

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/peerlearn/peerlearn/types/ident"
)

// PENS is Algorithm 4, Performance-based Neighbour Selection.
//
// Step 1 (rounds 1..Step1Rounds): each round the caller draws Samplings
// independent evaluated samples of m_sample peers; for each, the
// m_selected best (Greedy) are appended to the communication history
// ~C_selected, and every evaluated candidate joins C_sampled. The round
// averages with the best of the last sample (line 11).
//
// At the first step-2 round the history is reduced to the neighbour set
// (SelectNeighbours, lines 18-25): with T = |~C_selected| / |C_sampled|,
// the expected count of a peer if selection were random, keep every
// sampled peer selected more than T times. If that leaves nobody (every
// count equal to T, possible only in degenerate settings such as
// m_selected = m_sample), the peers with the highest count are kept
// instead, so step 2 never runs alone by accident.
//
// Step 2 (later rounds): Random with Step2Selected, only among the kept
// neighbours; the caller draws no samples.
type PENS struct {
	cfg        Config
	counts     map[ident.Peer]int  // occurrences in ~C_selected
	sampled    map[ident.Peer]bool // C_sampled
	total      int                 // |~C_selected|
	neighbours []ident.Peer        // C_neighbours, sorted; valid once done
	done       bool
}

func newPENS(cfg Config) *PENS {
	return &PENS{cfg: cfg, counts: map[ident.Peer]int{}, sampled: map[ident.Peer]bool{}}
}

// Kind implements Policy.
func (*PENS) Kind() Kind { return KindPENS }

// Plan implements Policy: Samplings evaluated samples of m_sample in step
// 1, nothing in step 2.
func (p *PENS) Plan(t int) Plan {
	if t <= p.cfg.Step1Rounds {
		return Plan{Samples: p.cfg.Samplings, Size: p.cfg.Sampled, Evaluate: true}
	}
	return Plan{}
}

// Select implements Policy. In step 1 it records every sample's greedy
// picks and returns those of the last sample; in step 2 it returns
// Step2Selected neighbours drawn at random from the kept set (samples are
// ignored). Once step 2 has begun a step-1 round is an error (ErrRound).
func (p *PENS) Select(t int, samples [][]Candidate, rng *rand.Rand) ([]Candidate, error) {
	if err := begin(p.cfg.Self, t, samples, rng); err != nil {
		return nil, err
	}
	if t > p.cfg.Step1Rounds {
		ns := pick(p.Neighbours(), p.cfg.Step2Selected, rng)
		out := make([]Candidate, len(ns))
		for i, id := range ns {
			out[i] = Candidate{ID: id}
		}
		return out, nil
	}
	if p.done {
		return nil, fmt.Errorf("%w: step-1 round %d after step 2 began", ErrRound, t)
	}
	var last []Candidate
	for _, s := range samples {
		ev := evaluated(s)
		for _, c := range ev {
			p.sampled[c.ID] = true
		}
		last = best(ev, p.cfg.Selected, p.cfg.Metric)
		for _, c := range last {
			p.counts[c.ID]++
			p.total++
		}
	}
	return last, nil
}

// Weights implements Policy: equal weights.
func (*PENS) Weights(_ float64, sel []Candidate) ([]float64, error) { return uniform(len(sel)), nil }

// Neighbours ends step 1 if it has not ended and returns the kept
// neighbour set C_neighbours, sorted by ID (a copy).
func (p *PENS) Neighbours() []ident.Peer {
	if !p.done {
		p.done = true
		p.neighbours = keep(p.counts, p.total, len(p.sampled))
	}
	return slices.Clone(p.neighbours)
}

// History returns a copy of the step-1 counts: how often each peer was
// among a sample's greedy picks.
func (p *PENS) History() map[ident.Peer]int {
	out := make(map[ident.Peer]int, len(p.counts))
	for id, c := range p.counts {
		out[id] = c
	}
	return out
}

// Expected returns T = |~C_selected| / |C_sampled| so far (0 before any
// sample).
func (p *PENS) Expected() float64 {
	if len(p.sampled) == 0 {
		return 0
	}
	return float64(p.total) / float64(len(p.sampled))
}

// SelectNeighbours is the thesis' procedure SelectNeighbours (Algorithm 4,
// lines 18-25) on an explicit history: selected is ~C_selected, one list
// of picks per sample, sampled is C_sampled. It returns, sorted by ID, the
// sampled peers that occur in selected more than T = |~C_selected| /
// |C_sampled| times (|~C_selected| counts every pick). Unlike PENS it has
// no fallback: it may return nothing. A pick that was never sampled is an
// error.
func SelectNeighbours(selected [][]ident.Peer, sampled []ident.Peer) ([]ident.Peer, error) {
	in := make(map[ident.Peer]bool, len(sampled))
	for _, id := range sampled {
		in[id] = true
	}
	counts := map[ident.Peer]int{}
	total := 0
	for _, s := range selected {
		for _, id := range s {
			if !in[id] {
				return nil, fmt.Errorf("%w: %v selected but not sampled", ErrCandidates, id)
			}
			counts[id]++
			total++
		}
	}
	return overRepresented(counts, total, len(in)), nil
}

// overRepresented returns, sorted, the peers with count*n > total (count
// > T without rounding).
func overRepresented(counts map[ident.Peer]int, total, n int) []ident.Peer {
	var out []ident.Peer
	for id, c := range counts {
		if c*n > total {
			out = append(out, id)
		}
	}
	slices.SortFunc(out, func(a, b ident.Peer) int { return bytes.Compare(a[:], b[:]) })
	return out
}

// keep is overRepresented with PENS's fallback to the most selected peers.
func keep(counts map[ident.Peer]int, total, n int) []ident.Peer {
	if out := overRepresented(counts, total, n); len(out) > 0 {
		return out
	}
	top := 0
	for _, c := range counts {
		top = max(top, c)
	}
	var out []ident.Peer
	for id, c := range counts {
		if c == top && c > 0 {
			out = append(out, id)
		}
	}
	slices.SortFunc(out, func(a, b ident.Peer) int { return bytes.Compare(a[:], b[:]) })
	return out
}
