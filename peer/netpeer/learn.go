package netpeer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/peer/rtc"
	"github.com/peerlearn/peerlearn/protocol/mep"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// LearnConfig makes a peer learn: FedLay's MEP over the overlay
// neighbours (learn.Peer in asynchronous mode), ticked with the overlay;
// MEP control messages travel as rtc KindApp frames, models as rtc
// transfers (the encoded MsgModel header as the manifest's metadata, the
// parameters as the payload).
type LearnConfig struct {
	// Build returns the learning peer (its Config().ID must be id, its
	// MEP period in overlay ticks) and, optionally, a test set to
	// evaluate on, once the welcome has brought the task spec (see
	// LearnerConfig). Called once, from Run's goroutine.
	Build func(spec task.Spec, id ident.Peer) (*learn.Peer, *data.Dataset, error)
	// EvalEvery is the period of evaluating the peer's current model on
	// the test set (0: never).
	EvalEvery time.Duration
	// EvalSamples evaluates on the first so many test samples (0: all).
	EvalSamples int
}

func (c *LearnConfig) validate() error {
	switch {
	case c.Build == nil:
		return errors.New("no Build")
	case c.EvalEvery < 0 || c.EvalSamples < 0:
		return fmt.Errorf("EvalEvery %v, EvalSamples %d", c.EvalEvery, c.EvalSamples)
	}
	return nil
}

// The spec-to-configuration recipe (TaskEngine, LearnerConfig, NewCore
// and the methods' configurations) is peer/node's (recipe.go), shared
// with the simulator and the tab.

// LearnStatus is the learning part of Status.
type LearnStatus struct {
	// Method is the method's state and the peer's role in it (nil:
	// FedLay's MEP, which these counters describe).
	Method *method.Status `json:"method,omitempty"`
	// Backend is the training engine: "go", or the companion's
	// "libtorch/DEVICE" (learn.Peer.Backend).
	Backend string `json:"backend"`
	// Tier and Period are FedLay's: the peer's capacity tier ("medium"
	// for every peer of a task without tiers) and its MEP period in
	// ticks (empty and 0 under another method).
	Tier   string `json:"tier,omitempty"`
	Period int    `json:"period,omitempty"`
	// MaxRounds is the task's max_rounds (0: no bound) and Done says
	// the peer trained them: its model is final (a method core's Status
	// says both too).
	MaxRounds int  `json:"max_rounds,omitempty"`
	Done      bool `json:"done,omitempty"`
	// Target is the task's target_accuracy; TargetReached says an
	// evaluation of this peer's model reached it: the task counts as
	// done here (the peer goes on until max_rounds or stopped).
	Target        float64 `json:"target"`
	TargetReached bool    `json:"target_reached,omitempty"`
	Rounds        int     `json:"rounds"`
	TrainLoss     float64 `json:"train_loss"`
	// TrainSeconds and TrainSamples sum a method core's finished
	// trainings (FedLay's MEP: 0): wall time from hand-out to hand-back,
	// and samples. bench live's simulator trains at their ratio.
	TrainSeconds float64 `json:"train_seconds,omitempty"`
	TrainSamples int     `json:"train_samples,omitempty"`
	// Accuracy and EvalLoss are the last evaluation's, of the model the
	// peer last published, at EvalRound rounds; Evals counts them.
	Accuracy  float64 `json:"accuracy"`
	EvalLoss  float64 `json:"eval_loss"`
	EvalRound int     `json:"eval_round"`
	Evals     int     `json:"evals"`
	// Model counts: as the MEP counts them, and transfers that failed.
	ModelsSent      uint64 `json:"models_sent"`
	ModelsReceived  uint64 `json:"models_received"`
	ModelsRejected  uint64 `json:"models_rejected"`
	TransfersFailed int    `json:"transfers_failed"`
	// Codec is the task's model codec ("" for float32 as it is);
	// ModelBytesRaw and ModelBytesWire count the model bytes this peer
	// sent, as float32 and as encoded (the saving is their difference);
	// CodecResets counts deltas refused for a reference this peer did
	// not hold (the sender was asked for a full model).
	Codec          string `json:"codec,omitempty"`
	ModelBytesRaw  int64  `json:"model_bytes_raw,omitempty"`
	ModelBytesWire int64  `json:"model_bytes_wire,omitempty"`
	CodecResets    int    `json:"codec_resets,omitempty"`
	// Refused counts MEP messages and models dropped on arrival.
	Refused int `json:"refused"`
	// What the robust aggregation did with the neighbours' models (see
	// docs/SECURITY.md): ModelsClipped counts models cut back far beyond
	// an honest neighbour's usual spread, ModelsBounded models whose
	// self-reported claims (data size, period, confidence) were capped,
	// ModelsRefused models refused, by reason ("non_finite", "arch",
	// "length", "screened", "other", and "dropped": offered or sent by a
	// neighbour we stopped exchanging models with). NeighborsDropped counts the times
	// a neighbour's reputation fell so low that we did.
	ModelsClipped    int            `json:"models_clipped"`
	ModelsBounded    int            `json:"models_bounded"`
	ModelsRefused    map[string]int `json:"models_refused,omitempty"`
	NeighborsDropped int            `json:"neighbors_dropped"`
	// Offenders are the neighbours behind those counts, by ID.
	Offenders []Offender `json:"offenders,omitempty"`
	// Model is the model the peer evaluates (a method core's, or the
	// MEP's published one), never modified, after ModelRound trainings:
	// the wasm peer evaluates it itself, yielding to the page.
	Model      []float32 `json:"-"`
	ModelRound int       `json:"-"`
}

// learner drives a learn.Peer on the peer's loop. Only the loop calls
// its methods; Work.Run and evaluations run on their own goroutines and
// report back through workDone and evalDone.
type learner struct {
	cfg      LearnConfig
	peer     *learn.Peer
	self     ident.Peer
	mgr      *rtc.Manager
	test     *data.Dataset
	eval     *learn.Evaluator
	logf     func(string, ...any)
	workDone chan *learn.Work
	evalDone chan evalResult
	evalBusy bool
	lastEval time.Time
	samples  uint64 // trained, every method (summary.go)
	st       LearnStatus
	guard    *node.Guard
	nbrs     []ident.Peer     // the overlay's neighbours, dropped ones included
	now      func() time.Time // the guard's clock: time.Now (tests advance their own)
	// deny closes a dropped neighbour's link and refuses it for a while:
	// the transport's Manager.Deny (nil without a transport; tests record).
	deny func(id ident.Peer, d time.Duration, why string)
	// method, if not nil, runs the spec's method instead of the MEP
	// (method.go); peer then trains synchronously (TrainFrom).
	method *methodDriver
	// period is a neighbour's MEP period (neighborPeriod).
	period func(ident.Peer) int
	// spec is the task a method core was built for (scaleInit builds it
	// again).
	spec task.Spec
	// codec, if not nil, carries models in the task's codec (wirecodec.go).
	codec *wireCodec
}

type evalResult struct {
	m     nn.Metrics
	round int
	err   error
}

// newLearner drives p in the spec's method; tick is the overlay's (and
// the MEP's) tick.
func newLearner(cfg LearnConfig, spec task.Spec, p *learn.Peer, test *data.Dataset, mgr *rtc.Manager, tick time.Duration, logf func(string, ...any)) (*learner, error) {
	l := &learner{
		cfg: cfg, peer: p, self: p.Config().ID, mgr: mgr, test: test, logf: logf,
		workDone: make(chan *learn.Work, 1), evalDone: make(chan evalResult, 1), st: LearnStatus{Target: spec.TargetAccuracy},
		guard:  node.NewGuard(p, p.Config().Reputation, time.Duration(max(p.Config().MEP.Period, 1))*tick, logf),
		now:    time.Now,
		period: node.NeighborPeriod(spec, node.TaskPeriod(spec, tick)),
	}
	if mgr != nil {
		l.deny = mgr.Deny
	}
	codec, err := newWireCodec(spec.Codec)
	if err != nil {
		return nil, err
	}
	l.codec, l.st.Codec = codec, spec.Codec
	if test != nil && cfg.EvalEvery > 0 {
		ev, err := learn.NewEvaluator(p.Config().Arch)
		if err != nil {
			return nil, err
		}
		l.eval = ev
	}
	if spec.MethodOf() != "fedlay" {
		d, err := newMethodDriver(spec, p, mgr, logf)
		if err != nil {
			return nil, err
		}
		d.codec = l.codec
		l.method, l.spec = d, spec
	}
	return l, nil
}

// scaleInit multiplies the initial model by the init gain the network-
// size estimate gave (sizer.go), before the first round. A method core
// was built from a copy of the plain He model (NewCore reads
// learn.Peer.Params), so it is built again from the scaled one: nothing
// has used it yet (the peer does not train, tick or step it before the
// gain, Peer.training), only its peers were set. If the model cannot be
// scaled the error says so and the core trains from plain He.
func (l *learner) scaleInit(gain float64) error {
	if err := l.peer.ScaleInit(gain); err != nil {
		return err
	}
	if l.method == nil {
		return nil // the MEP trains from learn.Peer's own model
	}
	d, err := newMethodDriver(l.spec, l.peer, l.mgr, l.logf)
	if err == nil {
		d.codec = l.codec
	}
	if err != nil {
		return fmt.Errorf("%s core from the scaled model: %w", l.method.name, err)
	}
	l.method = d
	d.setPeers(l.nbrs)
	return nil
}

// setNeighbors follows the overlay's neighbour set.
func (l *learner) setNeighbors(ids []ident.Peer) {
	l.nbrs = slices.Clone(ids)
	if l.method != nil {
		l.method.setPeers(l.nbrs)
		return
	}
	l.applyNeighbors(l.now())
}

// applyNeighbors gives the MEP the overlay's neighbours less the dropped
// ones: no offer goes to a dropped neighbour and no round waits for its
// model. The transport denies it for as long (rtc.Manager.Deny, called
// from finish): its connection closes and none is made until the drop
// ends, so the overlay cannot reach it either and its failure detection
// takes it out of the neighbour set; a repair that finds it again only
// meets the refusal. A neighbour's period is the task's, or with tiers
// its tier's (drawn from its ID, as its own peer drew it).
func (l *learner) applyNeighbors(now time.Time) {
	ns := make([]mep.Neighbor, 0, len(l.nbrs))
	for _, id := range l.nbrs {
		if !l.guard.Dropped(id, now) {
			ns = append(ns, mep.Neighbor{ID: id, Period: l.period(id)})
		}
	}
	if err := l.peer.SetNeighbors(ns); err != nil {
		l.logf("learn: neighbours: %v", err)
	}
}

func (l *learner) tick() {
	if l.method != nil {
		l.method.core.Tick()
		l.maybeEval()
		return
	}
	if now := l.now(); len(l.guard.Expire(now)) > 0 {
		l.applyNeighbors(now)
	}
	if err := l.peer.Tick(); err != nil {
		l.logf("learn: tick: %v", err)
	}
	l.maybeEval()
}

// model is the model the peer evaluates and its round.
func (l *learner) model() ([]float32, int) {
	if l.method != nil {
		return l.method.core.Model(), l.method.rounds
	}
	return l.peer.Published(), l.peer.Metrics().Rounds
}

func (l *learner) maybeEval() {
	if m, _ := l.model(); l.eval != nil && !l.evalBusy && time.Since(l.lastEval) >= l.cfg.EvalEvery && m != nil {
		l.startEval()
	}
}

// flush sends what the MEP wants sent and starts a due round.
func (l *learner) flush() {
	if l.method != nil {
		l.method.flush(l.workDone)
		return
	}
	if !l.peer.HasReady() {
		return
	}
	rd := l.peer.Ready()
	for _, m := range rd.Messages {
		if err := l.send(m); err != nil {
			l.logf("learn: send %v to %v: %v", m.Type, m.To, err)
		}
	}
	if w := rd.Work; w != nil {
		go func() {
			w.Run()
			l.workDone <- w // cap 1, one Work at a time
		}()
	}
}

// tamper, if not nil, rewrites a model before it is sent. It is nil in
// every shipped binary: only attack.go, built with -tags attack for the
// end-to-end attack test, sets it.
var tamper func(m *mep.Message)

func (l *learner) send(m mep.Message) error {
	if tamper != nil && m.Type == mep.MsgModel {
		tamper(&m)
	}
	hdr, err := mep.Encode(m)
	if err != nil {
		return err
	}
	if m.Type != mep.MsgModel {
		return l.mgr.SendApp(m.To, hdr)
	}
	var payload []byte
	if l.codec != nil {
		if payload, err = l.codec.encode(m.To, m.Params, m.Hessian); err != nil {
			return err
		}
	} else {
		payload = make([]byte, 0, 4*(len(m.Params)+len(m.Hessian)))
		for _, v := range [][]float32{m.Params, m.Hessian} {
			for _, x := range v {
				payload = binary.LittleEndian.AppendUint32(payload, math.Float32bits(x))
			}
		}
	}
	_, err = l.mgr.SendTransfer(m.To, hdr, payload, m.Fingerprint, m.Model.Task)
	return err
}

// finish applies a Work that has run.
func (l *learner) finish(w *learn.Work) {
	if w.Err() == nil {
		l.samples += uint64(w.Samples())
	}
	if l.method != nil {
		l.method.finish(w)
		l.st.Rounds, l.st.TrainLoss = l.method.rounds, l.peer.Metrics().TrainLoss
		l.st.TrainSeconds, l.st.TrainSamples = l.method.trainTime.Seconds(), l.method.trainSamples
		return
	}
	if err := l.peer.Finish(w); err != nil {
		l.logf("learn: round: %v", err)
	}
	now := l.now()
	if drop := l.guard.Observe(w.Report(), now); len(drop) > 0 {
		for _, id := range drop {
			l.guard.Drop(id, now)
			if l.deny != nil {
				l.deny(id, l.guard.BanFor(), "a repeat offender in model exchange") // the link goes too
			}
		}
		l.applyNeighbors(now)
	}
	mt := l.peer.Metrics()
	l.st.Rounds, l.st.TrainLoss = mt.Rounds, mt.TrainLoss
}

// onApp steps the MEP with a control message from peer from.
func (l *learner) onApp(from ident.Peer, b []byte) {
	if l.codec != nil && isCodecFrame(b) {
		if err := l.codec.onFrame(from, b); err != nil {
			l.st.Refused++
			l.logf("learn: dropped a codec frame from %v: %v", from, err)
		}
		return
	}
	if l.method != nil {
		l.method.onApp(from, b)
		return
	}
	if l.guard.Dropped(from, l.now()) {
		l.guard.RefusedDropped(from) // its offers go unanswered: no model of it is fetched
		return
	}
	m, err := mep.Decode(b)
	if err == nil && m.From != from {
		err = fmt.Errorf("MEP message from %v claims to be from %v", from, m.From)
	}
	if err == nil && m.Type == mep.MsgModel {
		err = errors.New("a model header without its payload")
	}
	if err == nil {
		m.To = l.self
		err = l.peer.Step(m)
	}
	if err != nil {
		l.st.Refused++
		l.logf("learn: dropped a message from %v: %v", from, err)
	}
}

// onTransfer steps the MEP with a model that arrived intact.
func (l *learner) onTransfer(from ident.Peer, man rtc.Manifest, payload []byte) {
	if l.method != nil {
		l.method.onTransfer(from, man, payload)
		return
	}
	if l.guard.Dropped(from, l.now()) {
		l.guard.RefusedDropped(from) // one asked for before the drop
		return
	}
	m, err := mep.Decode(man.Meta)
	switch {
	case err != nil:
	case m.From != from || m.Type != mep.MsgModel:
		err = fmt.Errorf("transfer from %v holds a %v from %v", from, m.Type, m.From)
	case man.Fingerprint != m.Fingerprint || man.Task != m.Model.Task:
		err = fmt.Errorf("transfer's manifest does not match its header")
	case l.codec == nil && int64(len(payload)) != m.Model.PayloadBytes():
		err = fmt.Errorf("transfer of %d bytes does not match its header (%d bytes)", len(payload), m.Model.PayloadBytes())
	}
	if err == nil {
		m.Params, m.Hessian, err = l.modelOf(from, m.Model, payload)
	}
	if err == nil {
		m.To = l.self
		err = l.peer.Step(m)
	}
	if err != nil {
		l.st.Refused++
		l.logf("learn: dropped a model from %v: %v", from, err)
	}
}

// modelOf reads a model's parameters (and Hessian, if the header says
// one goes along) from a transfer's payload: float32 as it is, or the
// task's codec (which may answer the sender with an ack or a reset).
func (l *learner) modelOf(from ident.Peer, h mep.ModelHeader, payload []byte) (params, hessian []float32, err error) {
	n := int(h.NumParams)
	if l.codec == nil {
		vals := make([]float32, len(payload)/4)
		for i := range vals {
			vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(payload[4*i:]))
		}
		if h.HasHessian {
			hessian = vals[n:]
		}
		return vals[:n:n], hessian, nil
	}
	rest := 0
	if h.HasHessian {
		rest = n
	}
	params, hessian, reply, err := l.codec.decode(from, payload, n, rest)
	l.st.CodecResets = l.codec.resets
	if reply != nil && l.mgr != nil {
		if serr := l.mgr.SendApp(from, reply); serr != nil {
			l.logf("learn: codec reply to %v: %v", from, serr)
		}
	}
	if !h.HasHessian {
		hessian = nil
	}
	return params, hessian, err
}

func (l *learner) startEval() {
	params, round := l.model() // never modified: safe to read on another goroutine
	n := l.test.Len()
	if l.cfg.EvalSamples > 0 {
		n = min(n, l.cfg.EvalSamples)
	}
	x, y := l.test.X[:n*l.test.Features()], l.test.Y[:n]
	l.evalBusy, l.lastEval = true, time.Now()
	go func() {
		m, err := l.eval.Evaluate(params, x, y)
		l.evalDone <- evalResult{m: m, round: round, err: err}
	}()
}

func (l *learner) evaluated(r evalResult) {
	l.evalBusy = false
	if r.err != nil {
		l.logf("learn: evaluation: %v", r.err)
		return
	}
	l.st.Accuracy, l.st.EvalLoss, l.st.EvalRound = r.m.Accuracy, r.m.Loss, r.round
	l.st.Evals++
	if !l.st.TargetReached && r.m.Accuracy >= l.st.Target {
		l.st.TargetReached = true
		l.logf("learn: target accuracy %.3f reached: %.4f at round %d", l.st.Target, r.m.Accuracy, r.round)
	}
}

func (l *learner) status() LearnStatus {
	s := l.st
	if l.codec != nil {
		s.ModelBytesRaw, s.ModelBytesWire = l.codec.raw, l.codec.wire
	}
	s.Backend = l.peer.Backend()
	s.Model, s.ModelRound = l.model()
	if l.method != nil {
		ms := l.method.core.Status()
		s.Method, s.MaxRounds, s.Done = &ms, ms.MaxRounds, ms.Role == "done"
		s.ModelsSent, s.ModelsReceived = ms.ModelsSent, ms.ModelsReceived
		s.Refused += l.method.refused
		return s
	}
	c := l.peer.Config().MEP
	s.Tier, s.Period, s.MaxRounds, s.Done = c.Tier.String(), c.Period, c.MaxRounds, l.peer.Done()
	mt := l.peer.Metrics()
	s.ModelsSent, s.ModelsReceived, s.ModelsRejected = mt.ModelsSent, mt.ModelsReceived, mt.ModelsRejected
	s.ModelsClipped, s.ModelsBounded, s.NeighborsDropped = mt.Outliers, mt.Bounded, l.guard.Drops()
	if r := l.guard.Refused(); len(r) > 0 {
		s.ModelsRefused = r
	}
	s.Offenders = l.guard.Offenders(l.now())
	return s
}
