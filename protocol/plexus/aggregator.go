package plexus

import (
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/types/ident"
)

// coll returns round k's collection, creating it.
func (p *Peer) coll(k uint64) *coll {
	c := p.colls[k]
	if c == nil {
		c = &coll{from: map[ident.Peer]bool{}}
		if pt := p.parts[k]; pt != nil {
			c.base = pt.base
		}
		p.colls[k] = c
	}
	return c
}

// addModel adds a trained model of round k to this peer's collection
// (Algorithm 2, line 13) and averages once the success fraction is
// reached (line 14). A model from another peer makes this peer an
// aggregator of round k even if its own view ranks it lower: the
// sender's view decided. Its own trained model joins at once if ready.
func (p *Peer) addModel(k uint64, m aggregate.Contribution) {
	if p.done[k] > 0 {
		p.stats.ModelsLate++
		return
	}
	p.settled(k)
	c := p.coll(k)
	if c.aggregating {
		p.stats.ModelsLate++
		return
	}
	if c.from[m.From] {
		p.stats.ModelsLate++
		return
	}
	c.from[m.From] = true
	c.models = append(c.models, m)
	if c.deadline == 0 {
		c.deadline = p.now + int64(p.cfg.AggTimeout)
	}
	if pt := p.parts[k]; pt != nil && pt.trained != nil && !c.from[p.cfg.ID] {
		delete(p.parts, k)
		c.from[p.cfg.ID] = true
		c.models = append(c.models, aggregate.Contribution{From: p.cfg.ID, Arch: p.cfg.Arch, Params: pt.trained, DataSize: p.cfg.DataSize})
	}
	if len(c.models) >= p.cfg.gate(len(p.view.Sample(k, p.cfg.SampleSize))) {
		p.aggregate(k, c)
	}
}

// aggregate hands the collection out as an AggregateTask.
func (p *Peer) aggregate(k uint64, c *coll) {
	c.aggregating = true
	p.stats.Aggregations++
	p.aggs = append(p.aggs, AggregateTask{Round: k, Base: c.base, Models: slices.Clone(c.models)})
}

// ReportAggregated hands back the average of round k (the peer keeps
// params and shares it with the transport). It completes the round: the
// other members of S^k and S^k+1 are told (MsgAggregated), then the
// members of S^k+1 get train(k+1, params) (Algorithm 2, lines 15-17),
// unless k is the last round.
func (p *Peer) ReportAggregated(k uint64, params []float32) error {
	c := p.colls[k]
	if c == nil || !c.aggregating {
		return fmt.Errorf("%w: aggregation of round %d", ErrNoTask, k)
	}
	if err := p.checkParams(params); err != nil {
		return err
	}
	n := uint32(len(c.models))
	delete(p.colls, k)
	p.aggregatedBy(k, p.cfg.ID) // a fallback rank: the ranks ahead of it were silent
	p.markDone(k, n)
	p.advance(k)
	if k >= p.global {
		p.global, p.globalP = k, params
	}
	last := p.cfg.Rounds > 0 && k >= p.cfg.Rounds
	var next []ident.Peer
	if !last {
		next = p.view.Sample(k+1, p.cfg.SampleSize)
	}
	// Every member of S^k and S^k+1 hears that round k is over, before
	// any train request: the short announcement reaches a member of
	// S^k+1 that the model may not (this peer dying while sending), and
	// that member then waits for its train request (await).
	for _, id := range next {
		if id != p.cfg.ID {
			p.send(Message{Type: MsgAggregated, To: id, Round: k, Count: n})
		}
	}
	for _, id := range p.view.Sample(k, p.cfg.SampleSize) {
		if id != p.cfg.ID && !slices.Contains(next, id) {
			p.send(Message{Type: MsgAggregated, To: id, Round: k, Count: n})
		}
	}
	if last {
		p.finished = true
		return nil
	}
	for _, id := range next {
		if id == p.cfg.ID {
			p.acceptTrain(k+1, params)
			continue
		}
		p.send(Message{Type: MsgTrain, To: id, Round: k + 1, Model: p.header(MsgTrain), Params: params})
	}
	return nil
}
