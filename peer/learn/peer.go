package learn

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/health"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/protocol/mep"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/types/ident"
)

// mode records how a peer is driven; the first call fixes it.
type mode uint8

const (
	modeUnset mode = iota
	modeAsync
	modeSync
)

// Peer is one learning peer. It is not safe for concurrent use, except
// that the outstanding Work may Run on another goroutine while the peer's
// other methods are called (they never touch what Run touches).
type Peer struct {
	cfg      Config
	tag      string
	local    *data.Dataset
	dataConf float64
	mode     mode
	mep      *mep.Peer

	// Touched only by Work.Run while a Work is outstanding.
	model   *nn.Model
	tr      nn.Backend // the model's own Trainer, or Config.NewBackend's
	ext     bool       // tr is Config.NewBackend's: parameters are copied in and out
	opt     nn.Optimizer
	agg     aggregate.Aggregator
	adopt   aggregate.Aggregator // agg, or Median for a robust agg (see adoptAggregator)
	rule    aggregate.Rule       // cfg.Aggregator, parsed once
	dechw   *aggregate.DecHW     // agg's DecHW state, when it runs on one
	batches *data.Batches
	bx      []float32
	by      []int32
	hbuf    []float32

	work       *Work     // outstanding, or nil
	published  []float32 // the last model published (shared, never modified)
	mixed      []float32 // the model the last published round started training from
	pubHessian []float32
	metrics    Metrics
	reputation *aggregate.Reputation // touched by Finish, on the caller's goroutine
	methodPr   method.Progress       // the method core's, with published (checkpoint.go)

	health       *healthCheck  // nil: Config.Health off; its monitor is touched only by Work.Run
	healthStatus health.Status // the monitor's, copied out by Finish
	replaceAsked bool          // a verdict asked for a new placement (TakeReplace)
	// mepBase sums the counters of the MEPs of the peer's earlier IDs
	// (Rekey), so that Metrics never goes back.
	mepBase mep.Stats
}

// NewPeer builds a peer on its local training set and draws its initial
// model as cfg.Init says. local must not change while the peer lives.
func NewPeer(cfg Config, local *data.Dataset) (*Peer, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if local == nil || local.Len() == 0 {
		return nil, fmt.Errorf("%w: no local data", ErrConfig)
	}
	tag, err := ArchTag(cfg.Arch)
	if err != nil {
		return nil, err
	}
	model, err := nn.NewModel(cfg.Arch)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if local.Features() != cfg.Arch.Input[0]*cfg.Arch.Input[1]*cfg.Arch.Input[2] {
		return nil, fmt.Errorf("%w: samples of %d features, architecture wants %v", ErrConfig, local.Features(), cfg.Arch.Input)
	}
	opt, err := cfg.Optimizer.New()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	var tr nn.Backend
	if cfg.NewBackend != nil {
		tr, err = cfg.NewBackend(cfg.Arch, opt)
		if err == nil && tr == nil {
			err = errors.New("NewBackend returned no backend")
		}
	} else {
		tr, err = nn.NewTrainer(model, opt)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	tr.SetYield(cfg.Yield)
	p := &Peer{cfg: cfg, tag: tag, local: local, model: model, tr: tr, ext: cfg.NewBackend != nil, opt: opt}
	if p.rule, err = aggregate.ParseRule(cfg.Aggregator); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if p.agg, err = newAggregator(cfg); err != nil {
		return nil, err
	}
	p.dechw = aggregate.DecHWOf(p.agg)
	p.adopt = adoptAggregator(p.rule, p.agg)
	if p.reputation, err = aggregate.NewReputation(cfg.Reputation); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if p.dataConf, err = aggregate.DataConfidence(local.Hist()); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := p.newHealthCheck(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7065657231)) // the peer's only random source
	if err := p.initModel(rng); err != nil {
		return nil, err
	}
	if ds, ok := tr.(dropoutSourced); ok && p.ext && model.DropoutSource() != nil {
		// The masks this peer's model would draw, not the backend's own
		// seed (which every companion peer would share).
		ds.SetDropoutSource(model.DropoutSource())
	}
	if p.batches, err = data.NewBatches(local, cfg.Batch, rng); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	p.bx = make([]float32, cfg.Batch*local.Features())
	p.by = make([]int32, cfg.Batch)
	if p.mep, err = mep.New(p.mepConfig()); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return p, nil
}

func newAggregator(cfg Config) (aggregate.Aggregator, error) {
	o := aggregate.DefaultOptions()
	o.DecHW, o.Bounds, o.Clip, o.Trim = cfg.DecHW, cfg.Bounds, cfg.Clip, cfg.Trim
	a, err := aggregate.NewWith(cfg.Aggregator, o)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return a, nil
}

// adoptAggregator is the rule a late joiner combines its neighbours'
// models with. A robust rule centres on "self", which a joiner without a
// model of its own would have to take from one neighbour (mep's
// Round.Inputs takes the first by ID): a liar there would be the centre
// every other model is clipped towards. The coordinate-wise median treats
// all the models alike, so under a robust rule a joiner adopts their
// median instead.
func adoptAggregator(rule aggregate.Rule, agg aggregate.Aggregator) aggregate.Aggregator {
	if rule.Robust() {
		return aggregate.Median{}
	}
	return agg
}

// dropoutSourced is a backend whose Dropout masks come from a generator
// it is given (gpu.Backend).
type dropoutSourced interface{ SetDropoutSource(*rand.Rand) }

// initModel draws the initial parameters.
func (p *Peer) initModel(rng *rand.Rand) error {
	var gain nn.Gain
	src := rng
	switch p.cfg.Init.Mode {
	case InitGain:
		g := float32(p.cfg.Init.Gain)
		gain = func(int) float32 { return g }
	case InitCommon:
		src = rand.New(rand.NewPCG(p.cfg.Init.CommonSeed, 0x636f6d6d6f6e))
	case InitWeights:
		if err := p.model.SetParams(p.cfg.Init.Weights); err != nil {
			return fmt.Errorf("%w: init weights: %w", ErrConfig, err)
		}
		// Init would have drawn the Dropout masks' seed after the
		// weights: the same draw, from the peer's generator.
		p.model.SetDropoutSource(rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64())))
		return nil
	}
	if err := p.model.Init(src, nn.HeNormal, gain); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return nil
}

// mepConfig completes cfg.MEP with what the peer knows.
func (p *Peer) mepConfig() mep.Config {
	c := p.cfg.MEP
	c.ID = p.cfg.ID
	c.Task = p.cfg.Task
	if c.Task == (ident.Task{}) {
		c.Task = sha256.Sum256([]byte("peerlearn task " + p.tag))
	}
	c.Arch = p.tag
	c.NumParams = p.model.NumParams()
	c.DataSize = p.local.Len()
	c.DataConf = p.dataConf
	return c
}

// Config returns the peer's configuration.
func (p *Peer) Config() Config { return p.cfg }

// Rule returns the peer's aggregation rule, parsed from its Config's
// Aggregator.
func (p *Peer) Rule() aggregate.Rule { return p.rule }

// Backend names the engine local training runs on: "go" for the pure-Go
// trainer, else what Config.NewBackend's backend says of itself through
// fmt.Stringer (the libtorch companion: "libtorch/cpu", "libtorch/cuda:0"),
// else "external".
func (p *Peer) Backend() string {
	if !p.ext {
		return "go"
	}
	if s, ok := p.tr.(fmt.Stringer); ok {
		return s.String()
	}
	return "external"
}

// ArchTag returns the architecture tag the peer sends with its models.
func (p *Peer) ArchTag() string { return p.tag }

// NumParams returns the model's parameter count.
func (p *Peer) NumParams() int { return p.model.NumParams() }

// DataSize returns the number of local training samples.
func (p *Peer) DataSize() int { return p.local.Len() }

// DataConf returns FedLay's data confidence c_d of the local labels.
func (p *Peer) DataConf() float64 { return p.dataConf }

// Busy reports whether a Work is outstanding.
func (p *Peer) Busy() bool { return p.work != nil }

// Metrics returns the peer's counters.
func (p *Peer) Metrics() Metrics {
	m := p.metrics
	if p.mode == modeAsync {
		s := p.mep.Stats()
		b := p.mepBase
		m.ModelsSent, m.ModelsReceived, m.ModelsRejected = b.ModelsSent+s.ModelsSent, b.ModelsReceived+s.ModelsReceived, b.ModelsRejected+s.ModelsRejected
		m.OffersSkipped = b.OffersSkipped + s.OffersSkipped
	}
	return m
}

// MEPStats returns the MEP state machine's counters (asynchronous mode).
func (p *Peer) MEPStats() mep.Stats { return p.mep.Stats() }

// Published returns the last published parameters (shared: read only),
// or nil before the first round ends.
func (p *Peer) Published() []float32 { return p.published }

// Mixed returns the model the last published round started its local
// training from: the aggregate of the peer's neighbourhood (or the
// initial or given model), before local training pulled it toward the
// local data. Read only; nil before the first round ends.
func (p *Peer) Mixed() []float32 { return p.mixed }

// Contribution describes the published model for an aggregation: ok is
// false before the first round ends.
func (p *Peer) Contribution() (c aggregate.Contribution, ok bool) {
	if p.published == nil {
		return c, false
	}
	return aggregate.Contribution{
		From:     p.cfg.ID,
		Arch:     p.tag,
		Params:   p.published,
		DataSize: p.local.Len(),
		Period:   max(p.cfg.MEP.Period, 1),
		DataConf: p.dataConf,
		Hessian:  p.pubHessian,
	}, true
}

// Reputation returns the peer's score of neighbour id in [0, 1] (1 for
// one never aggregated with): it falls when id's models are refused or
// cut back far by a robust rule, and recovers slowly.
func (p *Peer) Reputation(id ident.Peer) float64 { return p.reputation.Score(id) }

// ShouldDrop reports whether neighbour id is a repeat offender the
// runtime should unlink from (its Reputation fell below
// Config.Reputation.DropBelow). The peer itself does not act on it.
func (p *Peer) ShouldDrop(id ident.Peer) bool { return p.reputation.ShouldDrop(id) }

// DriftCharged lists the neighbours (indices into the round's others)
// the drift test (Config.Reputation.Drift) would charge in a round that
// reported rep among witnesses neighbours' models, without changing
// anything: the knowledge the lab grants an attacker that knows the rule
// (sim/dflsim's adaptive attacks).
func (p *Peer) DriftCharged(rep aggregate.Report, witnesses int) []int {
	return p.reputation.DriftCharged(rep, witnesses)
}

// setMode fixes the mode on first use.
func (p *Peer) setMode(m mode) error {
	if p.mode != modeUnset && p.mode != m {
		return ErrMode
	}
	if m == modeAsync && p.mode != modeAsync && p.cfg.Clip.Behind > 0 {
		// The behind check (aggregate.ClipConfig.Behind) compares
		// neighbours' positions along our step, which assumes models
		// of one round: in asynchronous exchange a neighbour's older
		// model sits behind ours for its age alone, and on real peers
		// (netpeer's TestE2EAttackClippedAndDropped) honest peers
		// unlinked honest neighbours for it. Off here.
		cfg := p.cfg
		cfg.Clip.Behind = 0
		agg, err := newAggregator(cfg)
		if err != nil {
			return err
		}
		p.agg, p.dechw, p.adopt = agg, aggregate.DecHWOf(agg), adoptAggregator(p.rule, agg)
	}
	if m == modeAsync && p.mode != modeAsync && p.cfg.Reputation.Drift.Limit > 0 && !p.cfg.Reputation.Drift.Async {
		// The drift test (aggregate.DriftConfig) sums how far each
		// neighbour pulls back against our step round after round; in
		// asynchronous exchange a slow honest neighbour's older model
		// pulls back for its age alone, every round. Off here, like the
		// behind check, unless Drift.Async keeps it (the lab measures
		// it); set before the first exchange, so no score is lost.
		rc := p.cfg.Reputation
		rc.Drift = aggregate.DriftConfig{}
		rep, err := aggregate.NewReputation(rc)
		if err != nil {
			return err
		}
		p.reputation = rep
	}
	p.mode = m
	return nil
}

func (p *Peer) logf(format string, args ...any) {
	if p.cfg.Logf != nil {
		p.cfg.Logf("peer %v: "+format, append([]any{p.cfg.ID}, args...)...)
	}
}

// Params returns a copy of the model's current parameters: the initial
// model before the first round, else the last published one. ErrBusy
// while a Work is outstanding (Run may be changing them).
func (p *Peer) Params() ([]float32, error) {
	if p.work != nil {
		return nil, ErrBusy
	}
	return slices.Clone(p.model.Params()), nil
}

// Forgive drops neighbour id's score: it starts again at full trust. The
// runtime calls it when a neighbour it stopped exchanging models with
// (ShouldDrop) is let back after a while, so that the old score does not
// drop it again before it has sent a model.
func (p *Peer) Forgive(id ident.Peer) { p.reputation.Forget(id) }

// Local returns the peer's local training set (shared: never modify it).
// Methods that evaluate others' models on it (PENS's evaluate-my-model
// requests) read it.
func (p *Peer) Local() *data.Dataset { return p.local }
