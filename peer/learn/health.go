package learn

import (
	"errors"
	"fmt"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/health"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/types/ident"
)

// HealthConfig switches on the neighbourhood check of engine/health
// (issue #26 item 3): each aggregating round the peer scores its own
// published model and every neighbour's model it is about to aggregate
// on its own local data, feeds a health.Monitor, and while the monitor
// says Captured aggregates only with the neighbours it trusts (its own
// model alone if none). It is what the simulator's dflsim.Health runs,
// through the same glue (health.Monitor.ObserveResults).
type HealthConfig struct {
	// On runs the check; off (the default) the peer trusts every
	// neighbour as before. Off by default: in the attack lab it makes a
	// full-knowledge push worse while it helps against others, and it
	// scores every neighbour's model each round (docs/SECURITY.md,
	// "Neighbourhood health").
	On bool
	// Check is the rule (health.DefaultConfig().ForClasses(k)).
	Check health.Config
	// Samples bounds the local samples models are scored on (the first
	// ones of the shard, the same every round); 0: all.
	Samples int
}

func (h HealthConfig) validate() error {
	if !h.On {
		return nil
	}
	if h.Samples < 0 {
		return fmt.Errorf("%w: health samples %d", ErrConfig, h.Samples)
	}
	if err := h.Check.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return nil
}

// ParamsEvaluator is an external nn.Backend (Config.NewBackend) that can
// also evaluate a parameter vector of its architecture without touching
// the model it trains: a tab's trainer worker (its SIMD kernels, off the
// page's thread). The neighbourhood check scores on it where the peer's
// backend is one, else, or when it answers ErrNotEvaluating, on a model
// of its own in the peer's runtime. Why:
// the check scores its own and every neighbour's model each round (on a
// 7,500-sample shard of the default task, 9 x 500 samples against one
// epoch's training, about a fifth of the round's arithmetic), and in a
// tab the page's plain WebAssembly runs it 4.7 times slower than the
// worker's SIMD (bench-browser's simd_ratio), on the thread that draws
// the page and runs WebRTC.
type ParamsEvaluator interface {
	EvaluateParams(params, x []float32, y []int32) (nn.Metrics, error)
}

// healthCheck is a peer's running check: the monitor and the model it
// evaluates with are touched only by Work.Run; what the caller reads
// (Peer.Health) is copied out in Finish. ext, when not nil, scores
// instead of eval (ParamsEvaluator).
type healthCheck struct {
	mon  *health.Monitor
	eval *nn.Model
	ext  ParamsEvaluator
	x    []float32
	y    []int32
}

func (p *Peer) newHealthCheck() error {
	if !p.cfg.Health.On {
		return nil
	}
	mon, err := health.New(p.cfg.Health.Check)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	m, err := nn.NewModel(p.cfg.Arch)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	n := p.local.Len()
	if s := p.cfg.Health.Samples; s > 0 && s < n {
		n = s
	}
	p.health = &healthCheck{mon: mon, eval: m, x: p.local.X[:n*p.local.Features()], y: p.local.Y[:n]}
	if e, ok := p.tr.(ParamsEvaluator); ok && p.ext {
		p.health.ext = e
	}
	p.healthStatus = mon.Status()
	return nil
}

// result evaluates params on the check's data.
func (h *healthCheck) result(from aggregate.Contribution, yield func()) (health.Result, error) {
	m, err := h.metrics(from.Params, yield)
	if err != nil {
		return health.Result{}, err
	}
	return health.Result{Peer: from.From, Params: from.Params, Correct: m.Correct, Total: m.Total, Loss: m.Loss}, nil
}

// metrics evaluates params on the check's data, on the backend where it
// can (ext; not once it says ErrNotEvaluating), else on the check's own
// model.
func (h *healthCheck) metrics(params []float32, yield func()) (nn.Metrics, error) {
	if h.ext != nil {
		m, err := h.ext.EvaluateParams(params, h.x, h.y)
		if !errors.Is(err, ErrNotEvaluating) {
			return m, err
		}
	}
	if err := h.eval.SetParams(params); err != nil {
		return nn.Metrics{}, err
	}
	return h.eval.Evaluate(h.x, h.y, 0, yield)
}

// checkHealth runs the check on an aggregating Work (in Run, before the
// screen and the aggregator): it scores self and w.others, records the
// verdict in w, and narrows w.others to the trusted neighbours. A model
// that cannot be evaluated (another length: the aggregator refuses it
// anyway) is left out of the observation, and so, while captured, of the
// trusted; an observation the monitor refuses leaves w.others as it is.
func (p *Peer) checkHealth(w *Work) {
	h := p.health
	self, err := h.result(w.self, p.cfg.Yield)
	if err != nil {
		return // our own model did not evaluate: no reference this round
	}
	nbrs := make([]health.Result, 0, len(w.others))
	seen := make(map[ident.Peer]bool, len(w.others))
	for _, c := range w.others {
		if seen[c.From] {
			continue // the monitor refuses repeats; the first stands for the peer
		}
		r, err := h.result(c, p.cfg.Yield)
		if err != nil {
			continue
		}
		seen[c.From] = true
		nbrs = append(nbrs, r)
	}
	var step float64
	if len(p.mixed) == len(w.self.Params) {
		step = health.Distance(w.self.Params, p.mixed)
	}
	v, err := h.mon.ObserveResults(self, nbrs, health.Round{Mine: w.self.Params, Step: step})
	if err != nil {
		return
	}
	w.health, w.healthStatus, w.healthRan = v, h.mon.Status(), true
	trust := v.TrustSet()
	if trust == nil {
		return
	}
	kept := make([]aggregate.Contribution, 0, len(w.others))
	for _, c := range w.others {
		if trust[c.From] {
			kept = append(kept, c)
		}
	}
	w.others = kept
}

// Health returns the check's state and counters (health.Status: the
// state, the last round's disagreeing neighbours, the new placements
// asked for) as of the last finished round; ok is false when the check
// is off.
func (p *Peer) Health() (s health.Status, ok bool) {
	return p.healthStatus, p.health != nil
}

// TakeReplace reports whether the check asked for a new placement since
// the last call (health.Verdict.Replace, at most every Cooldown alarming
// rounds), and clears the request: the runtime acts on it once.
func (p *Peer) TakeReplace() bool {
	r := p.replaceAsked
	p.replaceAsked = false
	return r
}
