package mep

import (
	"fmt"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Peer is one peer's MEP state machine. It is not safe for concurrent
// use; drive it from one goroutine (or one simulator event loop).
type Peer struct {
	cfg   Config
	now   int64
	nbrs  map[ident.Peer]*neighbor
	order []ident.Peer // neighbour IDs, sorted: deterministic output

	// The published model: version 0 means none yet.
	version uint64
	fp      Fingerprint
	params  []float32
	hessian []float32

	nextRound int64 // tick the next round is due
	inRound   bool  // a Round is out, ReportTrained/AbortRound pending
	roundSeq  uint64

	msgs  []Message
	round *Round
	stats Stats
}

// Ready is what the caller must carry out: send Messages (a MsgModel with
// its Params and Hessian as payload) and, if Round is set, aggregate and
// train, then call ReportTrained.
type Ready struct {
	Messages []Message
	Round    *Round
}

// New validates cfg and returns a peer with no neighbours and no model;
// its first round is due at tick cfg.Period.
func New(cfg Config) (*Peer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Peer{cfg: cfg, nbrs: map[ident.Peer]*neighbor{}, nextRound: int64(cfg.Period)}, nil
}

// Now returns the number of ticks so far.
func (p *Peer) Now() int64 { return p.now }

// Stats returns the counters.
func (p *Peer) Stats() Stats { return p.stats }

// Model returns the published model's version and fingerprint (0 and
// zero before the first ReportTrained).
func (p *Peer) Model() (uint64, Fingerprint) { return p.version, p.fp }

// HasReady reports whether Ready has anything to hand out.
func (p *Peer) HasReady() bool { return len(p.msgs) > 0 || p.round != nil }

// Ready hands out, and forgets, everything accumulated since the last
// call. The caller owns the returned slices.
func (p *Peer) Ready() Ready {
	rd := Ready{Messages: p.msgs, Round: p.round}
	p.msgs, p.round = nil, nil
	return rd
}

// Tick advances time by one tick: expires pending offers and transfers,
// makes the offers that are due and starts a due round.
func (p *Peer) Tick() {
	p.now++
	for _, id := range p.order {
		n := p.nbrs[id]
		if n.offered != (Fingerprint{}) && p.now >= n.offerDue {
			n.offered = Fingerprint{}
			p.stats.OfferTimeouts++
		}
		if n.want != (Fingerprint{}) && p.now >= n.wantDue {
			n.want = Fingerprint{}
			p.stats.TransferTimeouts++
		}
		p.offerIfDue(n)
	}
	p.maybeRound()
}

// offerIfDue offers the published model to n if the pair period since the
// last offer to n has passed. Only an offer actually sent starts a new
// pair period: a skipped one (n holds the model) leaves the window open,
// so the next model published goes out at once rather than waiting up to
// a whole pair period. That keeps neighbours' copies one round fresher
// (FedLay's "freshest model") while sending at most one offer per pair
// period.
func (p *Peer) offerIfDue(n *neighbor) {
	if p.now >= n.nextOffer && p.offer(n) {
		n.nextOffer = p.now + p.pair(n)
	}
}

// offer offers the published model to n unless n holds it or an offer of
// it is pending; it reports whether it sent one.
func (p *Peer) offer(n *neighbor) bool {
	switch {
	case p.version == 0:
		return false
	case n.held == p.fp || n.offered == p.fp:
		if p.now >= n.skipCount { // count once per pair period, not per tick
			p.stats.OffersSkipped++
			n.skipCount = p.now + p.pair(n)
		}
		return false
	}
	n.offered, n.offerDue = p.fp, p.now+int64(p.cfg.OfferTimeout)
	p.send(Message{Type: MsgOffer, To: n.id, Version: p.version, Fingerprint: p.fp})
	p.stats.OffersSent++
	return true
}

// maybeRound emits the round if it is due and may start.
func (p *Peer) maybeRound() {
	if p.now < p.nextRound || p.last() {
		return
	}
	if p.inRound || p.joinWaiting() {
		p.stats.RoundsDelayed++
		return
	}
	p.roundSeq++
	r := &Round{Seq: p.roundSeq, Kind: RoundAggregate}
	for _, id := range p.order {
		if m := p.nbrs[id].model; m != nil {
			r.Models = append(r.Models, *m)
		}
	}
	switch {
	case p.version > 0:
		r.Self = p.contribution()
	case len(r.Models) > 0:
		r.Kind = RoundAdopt
	default:
		r.Kind = RoundInit
	}
	p.round, p.inRound = r, true
	p.nextRound = p.now + int64(p.cfg.Period)
	p.stats.Rounds++
}

// last reports whether MaxRounds rounds have started: no more will.
func (p *Peer) last() bool {
	return p.cfg.MaxRounds > 0 && p.roundSeq >= uint64(p.cfg.MaxRounds)
}

// Done reports whether the peer has trained its MaxRounds rounds (and
// none is in flight): its published model is final.
func (p *Peer) Done() bool { return p.last() && !p.inRound }

// joinWaiting: a peer without a model holds its first round back while a
// neighbour model it asked for is on the way, up to JoinWait ticks.
func (p *Peer) joinWaiting() bool {
	if p.version > 0 || p.now-p.nextRound >= int64(p.cfg.JoinWait) {
		return false
	}
	for _, n := range p.nbrs {
		if n.want != (Fingerprint{}) {
			return true
		}
	}
	return false
}

// contribution describes the published model for aggregation.
func (p *Peer) contribution() aggregate.Contribution {
	return aggregate.Contribution{
		From:     p.cfg.ID,
		Arch:     p.cfg.Arch,
		Params:   p.params,
		DataSize: p.cfg.DataSize,
		Period:   p.cfg.Period,
		DataConf: p.cfg.DataConf,
		Hessian:  p.hessian,
	}
}

// send queues m from this peer.
func (p *Peer) send(m Message) {
	m.From = p.cfg.ID
	p.msgs = append(p.msgs, m)
}

// ReportTrained publishes a new model, ending the round in flight if
// any: it becomes the model offered from now on, with the next version,
// and is offered at once to every neighbour whose pair period allows.
// hessian may be nil (DecHW past theta, or other aggregators). The peer
// keeps params and hessian and shares them with the transport: the
// caller must not modify them afterwards (train into a working copy).
func (p *Peer) ReportTrained(params, hessian []float32) (Fingerprint, error) {
	if len(params) != p.cfg.NumParams {
		return Fingerprint{}, fmt.Errorf("%w: %d parameters, want %d", ErrBadReport, len(params), p.cfg.NumParams)
	}
	if hessian != nil && len(hessian) != len(params) {
		return Fingerprint{}, fmt.Errorf("%w: Hessian of %d, want %d", ErrBadReport, len(hessian), len(params))
	}
	p.version++
	p.fp = FingerprintOf(params, hessian)
	p.params, p.hessian = params, hessian
	p.inRound = false
	for _, id := range p.order {
		p.offerIfDue(p.nbrs[id])
	}
	return p.fp, nil
}

// AbortRound ends the round in flight without a new model (training
// failed or was cancelled); the next round comes at its usual time.
func (p *Peer) AbortRound() { p.inRound = false }

// ReportSendFailed tells the peer that the model with fingerprint fp did
// not reach peer to; it will be offered again at the next pair period.
func (p *Peer) ReportSendFailed(to ident.Peer, fp Fingerprint) {
	if n := p.nbrs[to]; n != nil && n.held == fp && fp != (Fingerprint{}) {
		n.held = Fingerprint{}
		p.stats.SendsFailed++
	}
}
