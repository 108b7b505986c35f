package mep

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Neighbor is an overlay neighbour and the period it advertises.
type Neighbor struct {
	ID     ident.Peer
	Period int
}

// neighbor is the per-neighbour protocol state.
type neighbor struct {
	id     ident.Peer
	period int
	// nextOffer is the first tick the next offer may go: one pair period
	// after the last offer sent.
	nextOffer int64
	// skipCount is the first tick a skipped offer is counted again in
	// Stats.OffersSkipped.
	skipCount int64

	// held is the fingerprint of our model the neighbour is known to hold
	// (it answered MsgHave, or we sent it).
	held Fingerprint
	// offered is the fingerprint of a pending offer, until offerDue.
	offered  Fingerprint
	offerDue int64

	// model is the neighbour's freshest model (nil: none yet), version
	// and fingerprint as sent.
	model        *aggregate.Contribution
	modelVersion uint64
	modelFP      Fingerprint
	// modelAt is the tick the current model arrived (valid when model is
	// not nil); onModel measures the neighbour's period from it.
	modelAt int64
	// want is the fingerprint we answered MsgNeed to, until wantDue.
	want    Fingerprint
	wantDue int64
}

// pair is the pair period max(T_u, T_v).
func (p *Peer) pair(n *neighbor) int64 { return int64(max(p.cfg.Period, n.period)) }

// SetNeighbors replaces the neighbour set with ns (for example after the
// overlay's Ready reports a change). Neighbours that left are forgotten,
// with their models; new ones get an offer on the next tick; a changed
// period takes effect at once (the next offer comes no later than one new
// pair period from now).
func (p *Peer) SetNeighbors(ns []Neighbor) error {
	if len(ns) > p.cfg.MaxNeighbors {
		return fmt.Errorf("%w: %d neighbours, at most %d", ErrNeighbors, len(ns), p.cfg.MaxNeighbors)
	}
	next := make(map[ident.Peer]*neighbor, len(ns))
	for _, v := range ns {
		switch {
		case v.ID == p.cfg.ID:
			return fmt.Errorf("%w: self %v", ErrNeighbors, v.ID)
		case v.Period < 1 || v.Period > MaxPeriod:
			return fmt.Errorf("%w: %v has period %d", ErrNeighbors, v.ID, v.Period)
		case next[v.ID] != nil:
			return fmt.Errorf("%w: %v twice", ErrNeighbors, v.ID)
		}
		n := p.nbrs[v.ID]
		if n == nil {
			n = &neighbor{id: v.ID, nextOffer: p.now + 1}
		}
		n.period = v.Period
		n.nextOffer = min(n.nextOffer, p.now+p.pair(n))
		next[v.ID] = n
	}
	p.nbrs = next
	p.order = p.order[:0]
	for id := range next {
		p.order = append(p.order, id)
	}
	slices.SortFunc(p.order, func(a, b ident.Peer) int { return bytes.Compare(a[:], b[:]) })
	return nil
}

// Neighbors returns the current neighbours in ID order.
func (p *Peer) Neighbors() []Neighbor {
	out := make([]Neighbor, len(p.order))
	for i, id := range p.order {
		out[i] = Neighbor{ID: id, Period: p.nbrs[id].period}
	}
	return out
}
