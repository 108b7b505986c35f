package plexus

import (
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/types/ident"
)

// acceptTrain handles train(k, θ): the first request for round k wins,
// later ones (from a fallback aggregator, or duplicates) are counted and
// ignored.
func (p *Peer) acceptTrain(k uint64, params []float32) {
	if p.accepted[k] || p.done[k] > 0 {
		p.stats.DuplicateTrains++
		return
	}
	p.settled(k)
	p.accepted[k] = true
	p.advance(k)
	if k-1 >= p.global {
		p.global, p.globalP = k-1, params
	}
	p.parts[k] = &part{base: params}
	p.train = append(p.train, TrainTask{Round: k, Params: params})
	// The aggregator's round begins with its own train request: T_agg
	// counts from here.
	if r := p.view.Ranking(k, p.cfg.SampleSize); len(r) > 0 && r[0] == p.cfg.ID {
		c := p.coll(k)
		if c.deadline == 0 {
			c.deadline = p.now + int64(p.cfg.AggTimeout)
		}
	}
}

// ReportTrained hands back the model trained for round k (the peer keeps
// params and shares it with the transport: do not modify it afterwards)
// and the cost of the training in the caller's units. If the round is
// already complete the model is dropped (Stats.TrainedLate).
func (p *Peer) ReportTrained(k uint64, params []float32, units uint64) error {
	pt := p.parts[k]
	if pt == nil || pt.trained != nil {
		return fmt.Errorf("%w: training of round %d", ErrNoTask, k)
	}
	if err := p.checkParams(params); err != nil {
		return err
	}
	p.stats.Trainings++
	p.stats.TrainUnits += units
	if p.done[k] > 0 {
		p.stats.TrainedLate++
		delete(p.parts, k)
		return nil
	}
	pt.trained = params
	p.deliver(k, pt)
	return nil
}

// deliver sends the trained model of round k to the best-ranked member
// of S^k it has not tried yet (the ranking moves a silent aggregator
// last, View.Missed), or keeps it if this peer is that aggregator or is
// already collecting round k as a fallback.
func (p *Peer) deliver(k uint64, pt *part) {
	own := aggregate.Contribution{From: p.cfg.ID, Arch: p.cfg.Arch, Params: pt.trained, DataSize: p.cfg.DataSize}
	if c := p.colls[k]; c != nil && !c.aggregating && c.deadline > 0 {
		p.keepOwn(k, own)
		return
	}
	attempt := len(pt.tried)
	ranks := p.view.Ranking(k, p.cfg.SampleSize)
	i := slices.IndexFunc(ranks, func(id ident.Peer) bool { return !slices.Contains(pt.tried, id) })
	if i < 0 || attempt >= p.cfg.MaxAttempts {
		p.stats.GaveUp++
		delete(p.parts, k)
		return
	}
	to := ranks[i]
	pt.tried = append(pt.tried, to)
	if to == p.cfg.ID {
		p.keepOwn(k, own)
		return
	}
	pt.deadline = p.now + int64(p.cfg.RoundTimeout)
	p.send(Message{Type: MsgTrained, To: to, Round: k, Attempt: uint8(attempt), Model: p.header(MsgTrained), Params: pt.trained})
}

// keepOwn adds this peer's own trained model to its collection of round
// k: it is the aggregator, so there is nothing to send or wait for.
func (p *Peer) keepOwn(k uint64, own aggregate.Contribution) {
	p.coll(k) // takes the round's base from the member state
	delete(p.parts, k)
	p.addModel(k, own)
}

// markDone records that round k is complete, averaging n models (1 if
// not known: at least one): a member stops waiting and a fallback
// collection that did not start averaging is abandoned.
func (p *Peer) markDone(k uint64, n uint32) {
	p.settled(k)
	p.done[k] = max(p.done[k], n, 1)
	if len(p.done) > 2*Window {
		// Rounds claimed ahead of the newest one are not pruned by
		// advance: a flood of claims evicts its own, not the rounds
		// that ran.
		ks := sortedKeys(p.done)
		if top := ks[len(ks)-1]; top != k {
			delete(p.done, top)
		} else {
			delete(p.done, ks[len(ks)-2])
		}
	}
	if pt := p.parts[k]; pt != nil && pt.trained != nil {
		delete(p.parts, k) // a training in progress stays until reported
	}
	if c := p.colls[k]; c != nil && !c.aggregating {
		delete(p.colls, k)
	}
}
