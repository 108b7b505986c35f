package node

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/protocol/mep"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// FedLay is FedLay's Model Exchange Protocol as a method.Core, so that
// one driver runs every method (node.Method, driven by node.Node; methodsim's
// coreNet): learn.Peer's MEP in asynchronous mode (offers before models,
// on the pair period max(T_u, T_v); tiers and max_rounds are the peer's
// MEP configuration, LearnerConfig's) and the Guard over its robust
// aggregation. A round is one learn.Work (aggregate the neighbours'
// models under the task's rule, screen, train, the Hessian for DecHW),
// handed out as Train.Job and reported back by Trained: the core stays
// pure while the Work runs wherever the runtime likes. MEP messages
// travel as Sends (the mep.Encode header; a model's parameters as
// Params, its Hessian as Rest), and arrive through Step the same way.
//
// The guard's time is the core's: Tick times the configured tick, so a
// drop lasts as many ticks on a real peer as in the simulator.
type FedLay struct {
	cfg   FedLayConfig
	lp    *learn.Peer
	self  ident.Peer
	guard *Guard
	ticks int64
	nbrs  []ident.Peer // the runtime's peers, dropped ones included
	work  *learn.Work  // outstanding, or nil
	// sendErrs counts messages the core could not encode (none: the MEP
	// makes only valid ones; counted rather than panicking).
	sendErrs int
}

// FedLayConfig configures a FedLay core.
type FedLayConfig struct {
	// Peer is the learning peer whose MEP the core drives; from now on
	// the core alone ticks, steps and finishes it (its Checkpoint,
	// Resume and ScaleInit stay the shell's, between rounds).
	Peer *learn.Peer
	// Period is a neighbour's MEP period in ticks (NeighborPeriod).
	Period func(ident.Peer) int
	// Tick is the duration of one tick: the guard's bans and log rate
	// are in this time.
	Tick time.Duration
	FedLayHooks
}

// FedLayHooks are what the shell adds to a FedLay core.
type FedLayHooks struct {
	// OnDrop, if not nil, hears of each neighbour the guard drops and
	// for how long: the shell closes its link and refuses it as long
	// (rtc.Manager.Deny).
	OnDrop func(id ident.Peer, d time.Duration)
	// Tamper, if not nil, rewrites a model before it is sent: a
	// Byzantine peer for the end-to-end attack test (netpeer built with
	// -tags attack); nil everywhere else.
	Tamper func(m *mep.Message)
	// Logf receives the guard's lines and dropped messages (nil: none).
	Logf func(string, ...any)
	// OnReplace, if not nil, hears the neighbourhood check's requests
	// for a new placement, with why (the Node's move decision, move.go);
	// nil: they are logged.
	OnReplace func(why string)
}

// NewFedLayCore builds the FedLay core for a "fedlay" task's learning
// peer lp (LearnerConfig's), with the overlay ticking every tick: its
// neighbours' periods are the task's, or with tiers their tiers'
// (NeighborPeriod). The spec's other methods' cores are NewCore's.
func NewFedLayCore(spec task.Spec, lp *learn.Peer, tick time.Duration, hooks FedLayHooks) (*FedLay, error) {
	if m := spec.MethodOf(); m != "fedlay" {
		return nil, fmt.Errorf("%w: a FedLay core for method %q", ErrConfig, m)
	}
	return NewFedLay(FedLayConfig{Peer: lp, Period: NeighborPeriod(spec, TaskPeriod(spec, tick)), Tick: tick, FedLayHooks: hooks})
}

// NewFedLay returns the core for cfg.
func NewFedLay(cfg FedLayConfig) (*FedLay, error) {
	if cfg.Peer == nil || cfg.Period == nil || cfg.Tick <= 0 {
		return nil, fmt.Errorf("%w: FedLay core: peer %v, period %v, tick %v", ErrConfig, cfg.Peer != nil, cfg.Period != nil, cfg.Tick)
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	c := cfg.Peer.Config()
	g := NewGuard(cfg.Peer, c.Reputation, time.Duration(max(c.MEP.Period, 1))*cfg.Tick, cfg.Logf)
	return &FedLay{cfg: cfg, lp: cfg.Peer, self: c.ID, guard: g}, nil
}

// fedlayEpoch is the guard's time at tick 0 (any fixed instant would do).
var fedlayEpoch = time.Unix(0, 0)

// now is the guard's time: ticks times the tick.
func (f *FedLay) now() time.Time { return fedlayEpoch.Add(time.Duration(f.ticks) * f.cfg.Tick) }

// Peer returns the learning peer (its metrics and checkpoints).
func (f *FedLay) Peer() *learn.Peer { return f.lp }

// Guard returns the guard (its drops, for the tests).
func (f *FedLay) Guard() *Guard { return f.guard }

// Now returns the guard's time (Guard's now).
func (f *FedLay) Now() time.Time { return f.now() }

// SetPeers implements method.Core: the overlay's neighbours.
func (f *FedLay) SetPeers(ids []ident.Peer) error {
	f.nbrs = slices.Clone(ids)
	return f.apply()
}

// apply gives the MEP the peers less the dropped ones: no offer goes to
// a dropped neighbour and no round waits for its model. The shell denies
// it for as long (OnDrop), so the overlay loses it too; a repair that
// finds it again only meets the refusal.
func (f *FedLay) apply() error {
	now := f.now()
	ns := make([]mep.Neighbor, 0, len(f.nbrs))
	for _, id := range f.nbrs {
		if !f.guard.Dropped(id, now) {
			ns = append(ns, mep.Neighbor{ID: id, Period: f.cfg.Period(id)})
		}
	}
	return f.lp.SetNeighbors(ns)
}

// Tick implements method.Core: drops that ran out end, then the MEP ticks.
func (f *FedLay) Tick() {
	f.ticks++
	if len(f.guard.Expire(f.now())) > 0 {
		if err := f.apply(); err != nil {
			f.cfg.Logf("learn: neighbours: %v", err)
		}
	}
	if err := f.lp.Tick(); err != nil {
		f.cfg.Logf("learn: tick: %v", err)
	}
}

// Step implements method.Core: an MEP control message (params nil) or a
// model, its parameters followed by its Hessian when the header says one
// goes along. A dropped neighbour's messages are counted by the guard
// and not even decoded (no error: they are its refusals, not the wire's).
func (f *FedLay) Step(from ident.Peer, header []byte, params []float32) error {
	if f.guard.Dropped(from, f.now()) {
		f.guard.RefusedDropped(from)
		return nil
	}
	m, err := mep.Decode(header)
	switch {
	case err != nil:
		return fmt.Errorf("%w: %w", method.ErrWire, err)
	case m.From != from:
		return fmt.Errorf("%w: MEP message from %v claims to be from %v", method.ErrForged, from, m.From)
	case (m.Type == mep.MsgModel) != (params != nil):
		return fmt.Errorf("%w: a %v with %d values", method.ErrPayload, m.Type, len(params))
	case params != nil && int64(len(params))*4 != m.Model.PayloadBytes():
		return fmt.Errorf("%w: %d values for a header of %d bytes", method.ErrPayload, len(params), m.Model.PayloadBytes())
	}
	if params != nil {
		n := int(m.Model.NumParams)
		m.Params = params[:n:n]
		if m.Model.HasHessian {
			m.Hessian = params[n:]
		}
	}
	m.To = f.self
	return f.lp.Step(m)
}

// HasReady implements method.Core.
func (f *FedLay) HasReady() bool { return f.lp.HasReady() }

// Ready implements method.Core: the MEP's messages, and a due round as a
// Job (learn.Work).
func (f *FedLay) Ready() method.Ready {
	var out method.Ready
	rd := f.lp.Ready()
	for _, m := range rd.Messages {
		if m.Type == mep.MsgModel && f.cfg.Tamper != nil {
			f.cfg.Tamper(&m)
		}
		h, err := mep.Encode(m)
		if err != nil {
			f.sendErrs++
			f.cfg.Logf("learn: encoding a %v to %v: %v", m.Type, m.To, err)
			continue
		}
		s := method.Send{To: m.To, Header: h}
		if m.Type == mep.MsgModel {
			s.Params, s.Rest = m.Params, m.Hessian
		}
		out.Sends = append(out.Sends, s)
	}
	if rd.Work != nil {
		f.work = rd.Work
		out.Train = &method.Train{Job: rd.Work}
	}
	return out
}

// errNoWork: Trained without a round outstanding.
var errNoWork = errors.New("node: FedLay: no round outstanding")

// Trained implements method.Core: the outstanding round's Job has run
// (params is nil: the Work holds the result). The model is published,
// or on failure the previous one stands; the guard counts what the
// aggregation did to each neighbour and drops the repeat offenders.
func (f *FedLay) Trained(_ []float32, _ int) error {
	w := f.work
	if w == nil {
		return errNoWork
	}
	f.work = nil
	err := f.lp.Finish(w)
	now := f.now()
	if f.lp.TakeReplace() {
		// engine/health's verdict: most neighbours pull against our
		// data (at capture, then at most every Cooldown alarming rounds).
		// The peer already aggregates only with the ones that agree; a
		// new placement takes a new admitted key (types/admission: the
		// salt is fixed per key and epoch): the Node decides whether to
		// move (OnReplace, move.go), else the volunteer is told.
		hs, _ := f.lp.Health()
		why := fmt.Sprintf("neighbourhood captured (%d of %d neighbours disagree with our data); averaging only with the others", hs.Disagree, hs.Neighbours)
		if f.cfg.OnReplace != nil {
			f.cfg.OnReplace(why)
		} else {
			f.cfg.Logf("health: %s; a new placement (a new admitted key) would give other neighbours (asked %d times)", why, hs.Replacements)
		}
	}
	if drop := f.guard.Observe(w.Report(), now); len(drop) > 0 {
		for _, id := range drop {
			f.guard.Drop(id, now)
			if f.cfg.OnDrop != nil {
				f.cfg.OnDrop(id, f.guard.BanFor()) // the link goes too
			}
		}
		if aerr := f.apply(); aerr != nil {
			f.cfg.Logf("learn: neighbours: %v", aerr)
		}
	}
	if err != nil {
		return fmt.Errorf("round: %w", err)
	}
	return nil
}

// Evaluated implements method.Core: FedLay asks for no evaluation.
func (*FedLay) Evaluated(uint64, float64, float64, int) error { return method.ErrNoEval }

// Model implements method.Core: the last published model (nil before
// the first round).
func (f *FedLay) Model() []float32 { return f.lp.Published() }

// Status implements method.Core.
func (f *FedLay) Status() method.Status {
	mt := f.lp.Metrics()
	role := "idle"
	switch {
	case f.work != nil:
		role = "training"
	case f.lp.Done():
		role = "done"
	}
	return method.Status{Method: "fedlay", Round: mt.Rounds, MaxRounds: f.lp.Config().MEP.MaxRounds, Role: role,
		Peers: len(f.lp.Neighbors()), ModelsSent: mt.ModelsSent, ModelsReceived: mt.ModelsReceived, Refused: uint64(mt.Dropped)}
}

// FedLayStatus is what FedLay's peers report beyond method.Status: the
// MEP's tier and period, and what the robust aggregation and the guard
// did with the neighbours' models.
type FedLayStatus struct {
	Tier   mep.Tier
	Period int
	// ModelsRejected counts models the MEP refused on receipt.
	ModelsRejected uint64
	// Clipped counts models cut back beyond an honest neighbour's
	// spread, Bounded models whose claims were capped; Refused the
	// aggregator's and the guard's refusals by reason; Drops the
	// neighbours dropped; Offenders the neighbours behind them.
	Clipped, Bounded int
	Refused          map[string]int
	Drops            int
	Offenders        []Offender
}

// Defence returns the FedLay status.
func (f *FedLay) Defence() FedLayStatus {
	c := f.lp.Config().MEP
	mt := f.lp.Metrics()
	s := FedLayStatus{Tier: c.Tier, Period: c.Period, ModelsRejected: mt.ModelsRejected, Clipped: mt.Outliers, Bounded: mt.Bounded,
		Drops: f.guard.Drops(), Offenders: f.guard.Offenders(f.now())}
	if r := f.guard.Refused(); len(r) > 0 {
		s.Refused = r
	}
	return s
}
