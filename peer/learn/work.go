package learn

import (
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/health"
)

// workKind is what a Work starts from.
type workKind uint8

const (
	workInit      workKind = iota + 1 // the initial model
	workAggregate                     // self aggregated with neighbours
	workAdopt                         // neighbours aggregated without self (late joiner)
	workFrom                          // given parameters (a FedAvg client)
)

// Work is one round's computation for one peer: aggregate (or start from
// the initial or given parameters), reset the optimiser if configured,
// train the local epochs or steps, estimate the Hessian diagonal for
// DecHW, and copy out the new model. Run may be called on any goroutine;
// the result goes back to the peer through Finish.
type Work struct {
	peer   *Peer
	kind   workKind
	seq    uint64
	self   aggregate.Contribution
	others []aggregate.Contribution
	start  []float32

	ran     bool
	mixed   []float32
	err     error
	params  []float32
	hessian []float32
	samples int
	loss    float64
	report  aggregate.Report

	healthRan    bool           // the neighbourhood check observed this round
	health       health.Verdict // its verdict
	healthStatus health.Status  // the monitor's status after it
}

// Seq numbers the peer's works from 1.
func (w *Work) Seq() uint64 { return w.seq }

// Peer returns the peer the work belongs to.
func (w *Work) Peer() *Peer { return w.peer }

// Samples returns the number of samples the work trains on (known before
// Run: the local steps times the batch, or the epochs times the shard).
func (w *Work) Samples() int {
	c := &w.peer.cfg
	if c.LocalSteps > 0 {
		return c.LocalSteps * c.Batch
	}
	return c.LocalEpochs * w.peer.local.Len()
}

// Err returns Run's error (nil before Run).
func (w *Work) Err() error { return w.err }

// Run does the computation. It touches only its peer's model, optimiser,
// batch iterator and aggregator, and reads the (immutable) models it was
// given, so works of different peers may run at the same time.
func (w *Work) Run() {
	if w.ran {
		return
	}
	w.ran = true
	p := w.peer
	if err := w.begin(); err != nil {
		w.fail(fmt.Errorf("%w: aggregation: %w", ErrTrain, err))
		return
	}
	w.mixed = slices.Clone(p.model.Params())
	loss, n, err := p.trainLocal()
	if err != nil {
		w.fail(fmt.Errorf("%w: %w", ErrTrain, err))
		return
	}
	w.loss, w.samples = loss, n
	if p.dechw != nil && p.dechw.UseHessian() {
		if err := p.observeHessian(); err != nil {
			w.fail(fmt.Errorf("%w: Hessian: %w", ErrTrain, err))
			return
		}
		w.hessian = slices.Clone(p.dechw.Accumulated())
	}
	w.params = slices.Clone(p.model.Params())
}

// begin sets the model to the round's starting point.
func (w *Work) begin() error {
	p := w.peer
	switch w.kind {
	case workInit:
		return nil // the model holds its initial parameters
	case workFrom:
		if err := p.model.SetParams(w.start); err != nil {
			return err
		}
	case workAggregate, workAdopt:
		agg := p.agg
		if w.kind == workAdopt {
			agg = p.adopt
		} else if p.health != nil {
			p.checkHealth(w) // may narrow w.others to the trusted neighbours
		}
		if w.kind == workAggregate && p.cfg.Screen.Loss != nil {
			agg = Screened{Inner: agg, Config: p.cfg.Screen}
		}
		rep, err := agg.Aggregate(w.self, w.others, p.model.Params())
		w.report = rep
		if err != nil {
			return err
		}
	}
	if p.cfg.ResetOptimizer {
		p.tr.ResetOptimizer()
	}
	return nil
}

// fail records err and puts the model back to the published parameters,
// so that the model and what neighbours hold agree.
func (w *Work) fail(err error) {
	w.err = err
	if pub := w.peer.published; pub != nil {
		_ = w.peer.model.SetParams(pub) // published models are finite
	}
}

// trainLocal runs the configured local steps or epochs and returns the
// mean training loss and the number of samples trained on.
func (p *Peer) trainLocal() (float64, int, error) {
	if p.ext {
		if err := p.tr.SetParams(p.model.Params()); err != nil {
			return 0, 0, err
		}
	}
	var total float64
	samples, steps, epochs := 0, 0, 0
	f := p.local.Features()
	for {
		if p.cfg.LocalSteps > 0 && steps == p.cfg.LocalSteps {
			break
		}
		if p.cfg.LocalSteps == 0 && epochs == p.cfg.LocalEpochs {
			break
		}
		n, err := p.batches.Next(p.bx, p.by)
		if err != nil {
			return 0, samples, err
		}
		if n == 0 { // an epoch ended
			epochs++
			continue
		}
		if steps > 0 && p.cfg.Yield != nil {
			p.cfg.Yield()
		}
		loss, err := p.tr.TrainBatch(p.bx[:n*f], p.by[:n])
		if err != nil {
			return 0, samples, err
		}
		total += float64(loss) * float64(n)
		samples += n
		steps++
	}
	if p.ext {
		if err := p.tr.Params(p.model.Params()); err != nil {
			return 0, samples, err
		}
	}
	return total / float64(max(samples, 1)), samples, nil
}

// observeHessian estimates the Hessian diagonal on the local data and
// folds it into DecHW's accumulator.
func (p *Peer) observeHessian() error {
	n := p.local.Len()
	if p.cfg.HessianSamples > 0 {
		n = min(n, p.cfg.HessianSamples)
	}
	if p.hbuf == nil {
		p.hbuf = make([]float32, p.model.NumParams())
	}
	f := p.local.Features()
	if err := p.tr.HessianDiag(p.local.X[:n*f], p.local.Y[:n], p.hbuf); err != nil {
		return err
	}
	return p.dechw.Observe(p.hbuf)
}

// Report returns what the Work's aggregation used, refused and cut back
// (the zero Report before Run, or for a Work that aggregated nothing).
// Refusals and Outliers name their neighbours, so that the runtime can
// count and log them per neighbour.
func (w *Work) Report() aggregate.Report { return w.report }
