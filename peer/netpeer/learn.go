package netpeer

import (
	"errors"
	"fmt"
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

// LearnConfig makes a peer learn: the task's method (FedLay's MEP by
// default, learn.Peer in asynchronous mode) over the overlay
// neighbours, ticked with the overlay; control messages travel as rtc
// KindApp frames, models as rtc transfers (the encoded header as the
// manifest's metadata, the parameters as the payload).
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
	// FedLay's MEP, which these counters describe; its core is
	// node.FedLay, driven like every other).
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
	// TrainSeconds and TrainSamples sum the method core's finished
	// trainings (FedLay's: its rounds, aggregation included): wall time
	// from hand-out to hand-back, and samples. bench live's simulator
	// trains at their ratio.
	TrainSeconds float64 `json:"train_seconds,omitempty"`
	TrainSamples int     `json:"train_samples,omitempty"`
	// Accuracy and EvalLoss are the last evaluation's, of the model the
	// peer last published, at EvalRound rounds; Evals counts them.
	// EvalFinal says that model is the final one: the method was done
	// (its role "done") when the evaluation began, which EvalRound
	// cannot say (a D-PSGD peer's last mix follows its last training).
	Accuracy  float64 `json:"accuracy"`
	EvalLoss  float64 `json:"eval_loss"`
	EvalRound int     `json:"eval_round"`
	Evals     int     `json:"evals"`
	EvalFinal bool    `json:"eval_final,omitempty"`
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
	// Health is the neighbourhood check's (engine/health; `peerlearn
	// peer -health`), absent when it is off.
	Health *HealthStatus `json:"health,omitempty"`
	// Suspension is the drift test's Suspend form's (`peerlearn peer
	// -suspend`), absent when it is off.
	Suspension *SuspensionStatus `json:"suspension,omitempty"`
	// Model is the model the peer evaluates (a method core's, or the
	// MEP's published one), never modified, after ModelRound trainings:
	// the wasm peer evaluates it itself, yielding to the page.
	Model      []float32 `json:"-"`
	ModelRound int       `json:"-"`
}

// learner is the shell of a learning peer's method core (node.Method,
// which the peer core drives: Run's loop hands it the core's models and
// control messages, runs the trainings the core hands out on their own
// goroutine and brings them back through workDone, and sends what the
// core sends, method.go). The learner keeps what needs a clock, a
// goroutine or the transport: the evaluations on the test set (evalDone),
// the wire codec, and the status.
type learner struct {
	cfg      LearnConfig
	peer     *learn.Peer
	self     ident.Peer
	task     ident.Task
	mgr      *rtc.Manager
	test     *data.Dataset
	eval     *learn.Evaluator
	logf     func(string, ...any)
	workDone chan method.Job
	evalDone chan evalResult
	// core is the peer core that drives the method and decides the
	// evaluations (nil until Run built it; tests without one).
	core *node.Node
	// trainStart is when the running training was handed out (the core
	// sums the wall time to its hand-back: the speed this peer actually
	// trained at, load included).
	trainStart time.Time
	samples    uint64 // trained, every method (summary.go)
	sendErr    int    // the core's messages the transport refused
	st         LearnStatus
	// deny closes a neighbour's link and refuses it for a while (FedLay's
	// guard dropped it): the transport's Manager.Deny (nil without a
	// transport; tests record).
	deny func(id ident.Peer, d time.Duration, why string)
	// method is the spec's method core, which the peer core drives.
	method *node.Method
	// codec, if not nil, carries models in the task's codec (wirecodec.go).
	codec *wireCodec
}

type evalResult struct {
	m     nn.Metrics
	round int
	err   error
}

// newLearner builds the spec's method core for p; tick is the overlay's
// (and the MEP's) tick.
func newLearner(cfg LearnConfig, spec task.Spec, p *learn.Peer, test *data.Dataset, mgr *rtc.Manager, tick time.Duration, logf func(string, ...any)) (*learner, error) {
	tid, err := spec.ID()
	if err != nil {
		return nil, err
	}
	l := &learner{
		cfg: cfg, peer: p, self: p.Config().ID, task: tid, mgr: mgr, test: test, logf: logf,
		workDone: make(chan method.Job, 1), evalDone: make(chan evalResult, 1), st: LearnStatus{Target: spec.TargetAccuracy},
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
	if l.method, err = node.NewMethod(spec, p, tick, tamper); err != nil {
		return nil, err
	}
	return l, nil
}

// dropped closes the link of a neighbour FedLay's guard stopped
// exchanging models with, for as long.
func (l *learner) dropped(d node.Deny) {
	if l.deny != nil {
		l.deny(d.Peer, d.For, "a repeat offender in model exchange")
	}
}

// model is the model the peer evaluates and its round.
func (l *learner) model() ([]float32, int) {
	return l.method.Model(), l.method.RoundsDone()
}

// evalEvery is the evaluations' period the peer core schedules: none
// without a test set.
func (l *learner) evalEvery() time.Duration {
	if l.eval == nil {
		return 0
	}
	return l.cfg.EvalEvery
}

// tamper, if not nil, rewrites a FedLay model before it is sent
// (node.FedLayConfig.Tamper). It is nil in every shipped binary: only
// attack.go, built with -tags attack for the end-to-end attack test,
// sets it.
var tamper func(m *mep.Message)

// startTraining runs a training the core handed out on its own
// goroutine (the core hands out one at a time).
func (l *learner) startTraining(j method.Job) {
	l.trainStart = time.Now()
	go func() {
		j.Run()
		l.workDone <- j // cap 1, one training at a time
	}()
}

// trained is told of a training the core has taken back.
func (l *learner) trained(j method.Job) {
	if j.Err() == nil {
		l.samples += uint64(j.Samples())
	}
	d, n := l.method.Trainings()
	l.st.Rounds, l.st.TrainLoss = l.method.RoundsDone(), l.peer.Metrics().TrainLoss
	l.st.TrainSeconds, l.st.TrainSamples = d.Seconds(), n
}

// onCodecFrame takes a codec's ack or reset.
func (l *learner) onCodecFrame(from ident.Peer, b []byte) {
	if err := l.codec.onFrame(from, b); err != nil {
		l.st.Refused++
		l.logf("learn: dropped a codec frame from %v: %v", from, err)
	}
}

// startEval runs the evaluation the peer core asked for on the test
// set, on a goroutine of its own.
func (l *learner) startEval(r node.EvalRequest) {
	params, round := r.Params, r.Round
	n := l.test.Len()
	if l.cfg.EvalSamples > 0 {
		n = min(n, l.cfg.EvalSamples)
	}
	x, y := l.test.X[:n*l.test.Features()], l.test.Y[:n]
	go func() {
		m, err := l.eval.Evaluate(params, x, y)
		l.evalDone <- evalResult{m: m, round: round, err: err}
	}()
}

func (l *learner) status() LearnStatus {
	s := l.st
	if l.codec != nil {
		s.ModelBytesRaw, s.ModelBytesWire, s.CodecResets = l.codec.raw, l.codec.wire, l.codec.resets
	}
	if l.core != nil {
		e := l.core.Evaluation()
		s.Accuracy, s.EvalLoss, s.EvalRound, s.Evals, s.TargetReached, s.EvalFinal = e.Accuracy, e.Loss, e.Round, e.Evals, e.TargetReached, e.Final
	}
	s.Backend = l.peer.Backend()
	if hs, ok := l.peer.Health(); ok {
		s.Health = healthStatusOf(hs)
	}
	if l.peer.Config().Reputation.Drift.Suspend {
		m := l.peer.Metrics()
		s.Suspension = &SuspensionStatus{Found: m.Drifting, LeftOut: m.Suspended}
	}
	s.Model, s.ModelRound = l.model()
	s.Refused += l.method.Refused()
	ms := l.method.Core().Status()
	s.MaxRounds, s.Done = ms.MaxRounds, ms.Role == "done"
	s.ModelsSent, s.ModelsReceived = ms.ModelsSent, ms.ModelsReceived
	fl := l.method.FedLay()
	if fl == nil {
		s.Method = &ms
		return s
	}
	// FedLay's: no Method (these counters describe its MEP), its tier
	// and period, and what its robust aggregation and guard did.
	fs := fl.Defence()
	s.Tier, s.Period, s.ModelsRejected = fs.Tier.String(), fs.Period, fs.ModelsRejected
	s.ModelsClipped, s.ModelsBounded, s.NeighborsDropped = fs.Clipped, fs.Bounded, fs.Drops
	s.ModelsRefused, s.Offenders = fs.Refused, fs.Offenders
	return s
}
