package plexus

import (
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/internal/f32"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Window is how many rounds behind the newest one a peer remembers;
// messages about older rounds are dropped (ErrStale).
const Window = 64

// MaxOpenRounds bounds the rounds a peer collects trained models for at
// once: any peer may send a model for any round, and each collection
// holds up to s models until it averages or its round falls out of the
// window. An honest peer collects one round, two while a fallback
// overlaps.
const MaxOpenRounds = 8

// Peer is one node's Plexus state machine (Algorithms 1 and 2 with the
// failure handling of the package comment). It is not safe for
// concurrent use; drive it from one goroutine or one simulator loop.
type Peer struct {
	cfg  Config
	view *View
	now  int64

	started  bool
	finished bool
	newest   uint64 // newest round accepted or aggregated here

	accepted map[uint64]bool   // rounds whose train request was accepted
	done     map[uint64]uint32 // rounds known to be complete: the models averaged, as far as known (>= 1)
	parts    map[uint64]*part  // member state per round
	colls    map[uint64]*coll  // aggregator state per round
	global   uint64            // round of the newest global model known
	globalP  []float32         // that model (round 0: the initial model)
	resume   *resume           // waiting for the train request of the round after one known complete

	msgs  []Message
	train []TrainTask
	aggs  []AggregateTask
	stats Stats
}

// part is this peer's work as a member of S^k.
type part struct {
	base     []float32    // the model round k started from
	trained  []float32    // nil while training
	tried    []ident.Peer // the aggregators the trained model went to, in order
	deadline int64        // when to try the next rank
}

// coll is this peer's work as an aggregator of round k.
type coll struct {
	base        []float32
	models      []aggregate.Contribution
	from        map[ident.Peer]bool
	deadline    int64 // T_agg deadline; 0 until the round began here
	aggregating bool  // AggregateTask emitted
}

// Ready is what the caller must carry out: send Messages (MsgTrain and
// MsgTrained with Params as payload), run the Train tasks and report them
// with ReportTrained, run the Aggregate tasks and report them with
// ReportAggregated.
type Ready struct {
	Messages  []Message
	Train     []TrainTask
	Aggregate []AggregateTask
}

// New validates cfg and returns a peer whose view holds view's members
// and itself.
func New(cfg Config, view ...Member) (*Peer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	v, err := NewView(view...)
	if err != nil {
		return nil, err
	}
	if _, err := v.Add(cfg.ID, cfg.Bandwidth); err != nil {
		return nil, err
	}
	return &Peer{
		cfg: cfg, view: v,
		accepted: map[uint64]bool{}, done: map[uint64]uint32{},
		parts: map[uint64]*part{}, colls: map[uint64]*coll{},
	}, nil
}

// View returns the peer's membership view; the caller may Add and
// Remove members (peers that joined or left).
func (p *Peer) View() *View { return p.view }

// Now returns the number of ticks so far.
func (p *Peer) Now() int64 { return p.now }

// Stats returns the counters.
func (p *Peer) Stats() Stats { return p.stats }

// Finished reports whether this peer aggregated the last round
// (Config.Rounds).
func (p *Peer) Finished() bool { return p.finished }

// Global returns the newest global model this peer knows and the round
// whose aggregation produced it (0: the initial model); nil before any.
// The slice is shared: do not modify it.
func (p *Peer) Global() (uint64, []float32) { return p.global, p.globalP }

// Wanted reports whether this peer's training for round k is still
// useful: the round is not known to be complete. A caller may skip a
// TrainTask whose round is no longer wanted and report nothing for it.
func (p *Peer) Wanted(k uint64) bool { return p.done[k] == 0 && p.parts[k] != nil }

// HasReady reports whether Ready has anything to hand out.
func (p *Peer) HasReady() bool { return len(p.msgs)+len(p.train)+len(p.aggs) > 0 }

// Ready hands out, and forgets, everything accumulated since the last
// call. The caller owns the returned slices.
func (p *Peer) Ready() Ready {
	rd := Ready{Messages: p.msgs, Train: p.train, Aggregate: p.aggs}
	p.msgs, p.train, p.aggs = nil, nil, nil
	return rd
}

// Start begins training: if this peer is in S^1 it gets a TrainTask for
// round 1 from initial (Algorithm 2, lines 4-5). Every peer must start
// from the same initial model (common initialisation) and call Start
// once, after its view is filled.
func (p *Peer) Start(initial []float32) error {
	if p.started {
		return ErrStarted
	}
	if err := p.checkParams(initial); err != nil {
		return err
	}
	p.started = true
	if p.global == 0 && p.globalP == nil {
		p.globalP = initial
	}
	if slices.Contains(p.view.Sample(1, p.cfg.SampleSize), p.cfg.ID) {
		p.acceptTrain(1, initial)
	}
	return nil
}

// Tick advances time by one tick: members whose aggregator stayed silent
// for T_round try the next rank, and aggregators past T_agg average what
// they hold.
func (p *Peer) Tick() {
	p.now++
	for _, k := range sortedKeys(p.parts) {
		pt := p.parts[k]
		if pt.trained != nil && p.now >= pt.deadline {
			// The aggregator it went to stayed silent for T_round:
			// ranked last from now on, here and in later rounds.
			if n := len(pt.tried); n > 0 { // always: a deadline is set when a model is sent
				p.view.Missed(pt.tried[n-1])
			}
			p.stats.Escalations++
			p.deliver(k, pt)
		}
	}
	if r := p.resume; r != nil && p.now >= r.deadline {
		p.resumeTimeout(r)
	}
	for _, k := range sortedKeys(p.colls) {
		c := p.colls[k]
		if !c.aggregating && c.deadline > 0 && p.now >= c.deadline && len(c.models) > 0 {
			p.stats.AggTimeouts++
			p.aggregate(k, c)
		}
	}
}

// Step hands the peer a received message (MsgTrain and MsgTrained with
// their Params payload). The sender joins or refreshes the view. Errors
// say why a message was dropped; the state stays consistent either way.
func (p *Peer) Step(m Message) error {
	if err := p.check(&m); err != nil {
		p.stats.Rejected++
		return err
	}
	p.count(&p.stats.Received, m)
	p.view.Add(m.From, m.Bandwidth) //nolint:errcheck // checkFields: ID and bandwidth non-zero
	p.view.Heard(m.From)
	k := m.Round
	switch m.Type {
	case MsgTrain:
		if k > 1 {
			p.aggregatedBy(k-1, m.From)
			p.markDone(k-1, 1)
		}
		p.acceptTrain(k, m.Params)
	case MsgTrained:
		if p.done[k] > 0 {
			p.lateModel(m)
			return nil
		}
		if p.colls[k] == nil && len(p.colls) >= MaxOpenRounds {
			p.stats.Rejected++
			return fmt.Errorf("%w: round %d, %d open", ErrBudget, k, len(p.colls))
		}
		p.addModel(k, aggregate.Contribution{From: m.From, Arch: m.Model.Arch, Params: m.Params, DataSize: int(m.Model.DataSize)})
	case MsgAggregated:
		p.aggregatedBy(k, m.From)
		p.markDone(k, m.Count)
		p.await(k, p.cfg.RoundTimeout)
	case MsgOver:
		p.markDone(k, m.Count)
		p.await(k, p.cfg.AggTimeout)
	}
	return nil
}

// aggregatedBy takes the first news that round k was aggregated, by
// peer a: the members ranked ahead of a in S^k missed their role (a
// member's model went past them, or a's view had them missed already),
// so they are ranked last here too. Members of later samples learn so
// from the train request itself and do not wait T_round for a dead
// aggregator as the members of S^k did. Later news of round k (a
// duplicate aggregation by a slow aggregator) says nothing more: that
// aggregator's message has cleared its Missed (Step, View.Heard).
func (p *Peer) aggregatedBy(k uint64, a ident.Peer) {
	if p.done[k] > 0 {
		return
	}
	r := p.view.Ranking(k, p.cfg.SampleSize)
	i := slices.Index(r, a)
	for _, id := range r[:max(i, 0)] {
		if id != p.cfg.ID { // it knows it is alive
			p.view.Missed(id)
		}
	}
}

// check drops what is malformed, not for us, stale or of another model.
func (p *Peer) check(m *Message) error {
	if (m.To != p.cfg.ID && m.To != ident.Peer{}) || m.From == p.cfg.ID {
		return fmt.Errorf("%w: %v -> %v", ErrNotForMe, m.From, m.To)
	}
	if err := checkFields(m); err != nil {
		return err
	}
	if p.newest > Window && m.Round <= p.newest-Window {
		return fmt.Errorf("%w: round %d, newest %d", ErrStale, m.Round, p.newest)
	}
	if !m.Type.carriesModel() {
		return nil
	}
	if m.Model.Arch != p.cfg.Arch || int(m.Model.NumParams) != p.cfg.NumParams {
		return fmt.Errorf("%w: %q with %d parameters", ErrBadModel, m.Model.Arch, m.Model.NumParams)
	}
	return p.checkParams(m.Params)
}

// checkParams requires NumParams finite values.
func (p *Peer) checkParams(v []float32) error {
	if len(v) != p.cfg.NumParams {
		return fmt.Errorf("%w: %d parameters, want %d", ErrBadModel, len(v), p.cfg.NumParams)
	}
	if i := f32.FirstNonFinite(v); i >= 0 {
		return fmt.Errorf("%w: parameter %d is %v", ErrBadModel, i, v[i])
	}
	return nil
}

// send queues m from this peer and counts it.
func (p *Peer) send(m Message) {
	m.From, m.Bandwidth = p.cfg.ID, p.cfg.Bandwidth
	p.count(&p.stats.Sent, m)
	p.msgs = append(p.msgs, m)
}

func (p *Peer) count(t *[numTypes + 1]Traffic, m Message) {
	t[m.Type].Msgs++
	t[m.Type].Bytes += uint64(WireBytes(m))
}

// header is this peer's model header for a message of type t.
func (p *Peer) header(t MsgType) ModelHeader {
	h := ModelHeader{Arch: p.cfg.Arch, NumParams: uint32(p.cfg.NumParams)}
	if t == MsgTrained {
		h.DataSize = uint64(p.cfg.DataSize)
	}
	return h
}

// advance records k as the newest round and forgets rounds that fell out
// of the window.
func (p *Peer) advance(k uint64) {
	if k <= p.newest {
		return
	}
	p.newest = k
	if k <= Window {
		return
	}
	old := k - Window
	for r := range p.accepted {
		if r <= old {
			delete(p.accepted, r)
		}
	}
	for r := range p.done {
		if r <= old {
			delete(p.done, r)
		}
	}
	for r := range p.parts {
		if r <= old {
			delete(p.parts, r)
		}
	}
	for r := range p.colls {
		if r <= old {
			delete(p.colls, r)
		}
	}
}

func sortedKeys[V any](m map[uint64]V) []uint64 {
	ks := make([]uint64, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
