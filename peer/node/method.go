package node

import (
	"errors"
	"fmt"
	"time"

	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/protocol/gossip"
	"github.com/peerlearn/peerlearn/protocol/mep"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Method runs the spec's method.Core for a learning peer, for every
// method: FedLay's MEP (FedLay) as Gossip, D-PSGD, PENS and Plexus. The
// Node drives it: the core's peers are the overlay's neighbours, its
// ticks the overlay's, and what it wants done comes out in the Node's
// Ready: its messages (ModelSends: a header alone is a control message,
// with Params a model), its training (Train: the core's own Job, or
// learn.Peer's TrainFrom of the parameters it hands out; one at a time,
// run by the shell and brought back with TrainDone), the neighbours
// FedLay's guard dropped (Denies). The evaluations a core asks for (PENS)
// run here, on a few hundred samples of the local shard.
type Method struct {
	name   string
	core   method.Core
	fedlay *FedLay // core when the method is FedLay's (its status fields)
	peer   *learn.Peer
	spec   task.Spec
	tick   time.Duration
	tamper func(*mep.Message)
	peers  []ident.Peer

	eval    *learn.Evaluator
	rounds  int // trainings finished
	refused int // messages refused on arrival
	busy    bool
	// job is the running training a core prepared itself (nil: a
	// TrainFrom of learn.Peer, or none).
	job          method.Job
	trainTime    time.Duration
	trainSamples int

	out methodOut
}

// methodOut is what the Method adds to the Node's next Ready.
type methodOut struct {
	sends []method.Send
	train method.Job
	deny  []Deny
	logs  []Log
	// replace is the neighbourhood check's latest request for a new
	// placement (FedLay's OnReplace), for the Node's move decision.
	replace string
}

// Deny asks the shell to close a neighbour's link and refuse it for For:
// FedLay's guard dropped it as a repeat offender in model exchange.
type Deny struct {
	Peer ident.Peer
	For  time.Duration
}

// EvalSamples bounds the local samples an evaluation for the core runs
// on (the shard's first ones): it runs on the peer's loop.
const EvalSamples = 256

// NewMethod builds the spec's core for lp; tick is the overlay's
// (FedLay's guard times its bans in it); tamper, if not nil, rewrites a
// FedLay model before it is sent (FedLayHooks.Tamper: only the
// end-to-end attack build sets it).
func NewMethod(spec task.Spec, lp *learn.Peer, tick time.Duration, tamper func(*mep.Message)) (*Method, error) {
	ev, err := learn.NewEvaluator(lp.Config().Arch)
	if err != nil {
		return nil, err
	}
	// A resumed peer's trainings count on from its checkpoint's.
	m := &Method{name: spec.MethodOf(), peer: lp, spec: spec, tick: tick, tamper: tamper, eval: ev, rounds: lp.Metrics().Rounds}
	if err := m.build(); err != nil {
		return nil, err
	}
	return m, nil
}

// build makes the core from learn.Peer's current model, where a resumed
// peer's core stood (method_resume.go).
func (m *Method) build() error {
	if m.spec.MethodOf() == "fedlay" {
		fl, err := NewFedLayCore(m.spec, m.peer, m.tick, FedLayHooks{OnDrop: m.dropped, Tamper: m.tamper, Logf: m.logf, OnReplace: m.replaceAsked})
		if err != nil {
			return err
		}
		m.core, m.fedlay = fl, fl
		resumeCore(m.name, fl, m.peer, m.logf)
		return nil
	}
	c, err := NewCore(m.spec, m.peer)
	if err != nil {
		return err
	}
	m.core, m.fedlay = c, nil
	resumeCore(m.name, c, m.peer, m.logf) // a resumed peer's round count goes on
	return nil
}

func (m *Method) logf(format string, args ...any) {
	m.out.logs = append(m.out.logs, Log{Text: fmt.Sprintf(format, args...)})
}

// dropped hears of a neighbour FedLay's guard stopped exchanging models
// with: its link goes too, for as long.
func (m *Method) dropped(id ident.Peer, d time.Duration) {
	m.out.deny = append(m.out.deny, Deny{Peer: id, For: d})
}

// replaceAsked hears the neighbourhood check's request for a new
// placement: the Node decides (move.go).
func (m *Method) replaceAsked(why string) { m.out.replace = why }

// Moved carries the learner to the peer's new place, under its new ID:
// learn.Peer keeps its model, round, optimiser and data (Rekey) and the
// core is built again for the new ID (FedLay's guard and MEP start with
// the new neighbourhood); the counters stay. Refused while a training
// is out (the shell moves between rounds).
func (m *Method) Moved(id ident.Peer) error {
	if m.busy {
		return fmt.Errorf("%w: moving during a training", ErrConfig)
	}
	if err := m.peer.Rekey(id); err != nil {
		return err
	}
	keepProgress(m.core, m.peer) // a core other than FedLay's resumes at its round
	m.peers, m.out = nil, methodOut{}
	return m.build()
}

// ScaleInit multiplies the initial model by the init gain of the
// network-size estimate, before the first round. A method core other
// than FedLay's was built from a copy of the plain He model (NewCore
// reads learn.Peer.Params), so it is built again from the scaled one:
// nothing has used it yet (the Node does not tick or step it before the
// gain), only its peers were set. FedLay's core trains learn.Peer's own
// model. If the model cannot be scaled the error says so and the core
// trains from plain He.
func (m *Method) ScaleInit(gain float64) error {
	if err := m.peer.ScaleInit(gain); err != nil {
		return err
	}
	if m.fedlay != nil {
		return nil // the MEP trains from learn.Peer's own model
	}
	if err := m.build(); err != nil {
		return fmt.Errorf("%s core from the scaled model: %w", m.name, err)
	}
	m.SetPeers(m.peers)
	return nil
}

// SetPeers follows the overlay's neighbour set.
func (m *Method) SetPeers(ids []ident.Peer) {
	m.peers = ids
	if err := m.core.SetPeers(ids); err != nil {
		m.logf("%s: peers: %v", m.name, err)
	}
}

// Tick advances the core by one overlay tick.
func (m *Method) Tick() { m.core.Tick() }

// Step hands the core a message from from: a control message (params
// nil) or a model, its parameters decoded by the shell.
func (m *Method) Step(from ident.Peer, header []byte, params []float32) {
	if err := m.core.Step(from, header, params); err != nil {
		m.refused++
		if !errors.Is(err, gossip.ErrNotForMe) {
			m.logf("%s: dropped a message from %v: %v", m.name, from, err)
		}
	}
}

// collect moves what the core wants done into the next Ready: its sends,
// its evaluations (run here) and its training.
func (m *Method) collect() {
	for m.core.HasReady() {
		rd := m.core.Ready()
		m.out.sends = append(m.out.sends, rd.Sends...)
		for _, e := range rd.Evals {
			m.evaluate(e)
		}
		if tr := rd.Train; tr != nil {
			m.train(tr)
		}
	}
}

// evaluate runs an Eval: a few hundred samples take milliseconds (the
// responder's rate limit bounds how many arrive).
func (m *Method) evaluate(e method.Eval) {
	local := m.peer.Local()
	n := min(local.Len(), EvalSamples)
	r, err := m.eval.Evaluate(e.Params, local.X[:n*local.Features()], local.Y[:n])
	samples := r.Samples
	if err != nil {
		m.logf("%s: evaluation: %v", m.name, err)
		samples = 0
	}
	if err := m.core.Evaluated(e.Token, r.Loss, r.Accuracy, samples); err != nil {
		m.logf("%s: evaluated: %v", m.name, err)
	}
}

// train hands a training out (every core stops asking after the spec's
// MaxRounds): the core's own Job, or learn.Peer's TrainFrom of its
// Params.
func (m *Method) train(tr *method.Train) {
	if tr.Job != nil {
		m.busy, m.job, m.out.train = true, tr.Job, tr.Job
		return
	}
	w, err := m.peer.TrainFrom(tr.Params)
	if err != nil {
		m.logf("%s: train: %v", m.name, err)
		if err := m.core.Trained(nil, 0); err != nil {
			m.logf("%s: %v", m.name, err)
		}
		return
	}
	m.busy, m.out.train = true, w
}

// trained hands the core a training that has run, which took elapsed
// from hand-out to hand-back (the shell's wall time, load included).
func (m *Method) trained(j method.Job, elapsed time.Duration) {
	m.busy = false
	m.trainTime += elapsed
	m.trainSamples += j.Samples()
	if m.job != nil {
		m.job = nil
		m.rounds++
		if err := m.core.Trained(nil, j.Samples()); err != nil { // the Job holds the result
			m.logf("%s: %v", m.name, err)
		}
		return
	}
	w, ok := j.(*learn.Work)
	if !ok {
		m.logf("%s: a training that is not learn.Peer's came back", m.name)
		return
	}
	var trained []float32
	if err := m.peer.Finish(w); err != nil {
		m.logf("%s: training: %v", m.name, err)
	} else {
		trained = m.peer.Published()
	}
	m.rounds++
	if err := m.core.Trained(trained, w.Samples()); err != nil {
		m.logf("%s: %v", m.name, err)
	}
	keepProgress(m.core, m.peer) // with the model just published, for the next checkpoint
}

// What the shell reads for its status.

// Name is the method's name, Core its core, FedLay the core when it is
// FedLay's (nil otherwise), Peer the learning peer.
func (m *Method) Name() string      { return m.name }
func (m *Method) Core() method.Core { return m.core }
func (m *Method) FedLay() *FedLay   { return m.fedlay }
func (m *Method) Peer() *learn.Peer { return m.peer }
func (m *Method) Refused() int      { return m.refused }
func (m *Method) Busy() bool        { return m.busy }
func (m *Method) Model() []float32  { return m.core.Model() }

// Done reports whether the method is done (its core's role "done"):
// its model is final.
func (m *Method) Done() bool { return m.core.Status().Role == "done" }

// RoundsDone is the rounds the peer's model has been through: FedLay's
// published rounds, or the trainings finished.
func (m *Method) RoundsDone() int {
	if m.fedlay != nil {
		return m.fedlay.Status().Round
	}
	return m.rounds
}

// Trainings sums the finished trainings: wall time (hand-out to
// hand-back) and samples.
func (m *Method) Trainings() (time.Duration, int) { return m.trainTime, m.trainSamples }
