package learn

import (
	"errors"
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

// Finish applies a Work whose Run has returned: on success the new model is
// published (offered to neighbours from now on, in asynchronous mode);
// on failure the peer keeps its previous model and Finish returns the
// Work's error (wrapping ErrTrain). Refused contributions are counted and
// logged here, on the caller's goroutine.
func (p *Peer) Finish(w *Work) error {
	if w == nil || w != p.work || !w.ran {
		return ErrWork
	}
	p.work = nil
	if w.healthRan {
		p.healthStatus = w.healthStatus
		p.replaceAsked = p.replaceAsked || w.health.Replace
	}
	p.countRefusals(w.report)
	p.countSuspended(w)
	if w.report.Used > 0 {
		suspend := p.cfg.Reputation.Drift.Suspend
		for _, j := range p.reputation.Observe(w.others, w.report) {
			p.metrics.Drifting++
			if suspend {
				p.logf("suspending %v: its model points back against our step round after round (drift test)", w.others[j].From)
			} else {
				p.logf("charged %v: its model points back against our step round after round (drift test)", w.others[j].From)
			}
		}
	}
	if w.err != nil {
		p.metrics.RoundsFailed++
		if p.mode == modeAsync {
			p.mep.AbortRound()
		}
		p.logf("round %d failed: %v", w.seq, w.err)
		return w.err
	}
	if p.mode == modeAsync {
		if _, err := p.mep.ReportTrained(w.params, w.hessian); err != nil {
			return fmt.Errorf("%w: %w", ErrTrain, err) // lengths are the model's: not reached
		}
	}
	p.published, p.pubHessian, p.mixed = w.params, w.hessian, w.mixed
	p.metrics.Rounds++
	p.metrics.SamplesTrained += int64(w.samples)
	p.metrics.TrainLoss = w.loss
	switch w.kind {
	case workAdopt:
		p.metrics.Adopted++
	case workFrom: // a FedAvg client uploads its model
		p.metrics.ModelBytesSent += 4 * int64(len(w.params))
		p.metrics.ModelsSent++
	}
	return nil
}

// Abort drops the outstanding Work without applying it: one never run,
// or one whose Run has returned (never while Run is under way); it must
// not be Finished afterwards. The peer keeps its model; in asynchronous
// mode the next round comes at its usual time.
func (p *Peer) Abort(w *Work) error {
	if w == nil || w != p.work {
		return ErrWork
	}
	p.work = nil
	if w.healthRan { // the monitor saw the round; show what it says
		p.healthStatus = w.healthStatus
		p.replaceAsked = p.replaceAsked || w.health.Replace
	}
	if w.ran && w.err == nil && p.published != nil {
		_ = p.model.SetParams(p.published) // undo the unpublished training
	}
	if p.mode == modeAsync {
		p.mep.AbortRound()
	}
	p.metrics.RoundsFailed++
	return nil
}

// countRefusals counts and logs the contributions an aggregation refused.
func (p *Peer) countRefusals(rep aggregate.Report) {
	for _, r := range rep.Refused {
		switch {
		case errors.Is(r.Err, aggregate.ErrNonFinite):
			p.metrics.Refused.NonFinite++
		case errors.Is(r.Err, aggregate.ErrArch):
			p.metrics.Refused.Arch++
		case errors.Is(r.Err, aggregate.ErrLength):
			p.metrics.Refused.Length++
		case errors.Is(r.Err, ErrScreened):
			p.metrics.Refused.Screened++
		default:
			p.metrics.Refused.Other++
		}
		p.logf("refused the model of %v: %v", r.From, r.Err)
	}
	p.metrics.Bounded += rep.Bounded
	for _, o := range rep.Outliers {
		if o.Severity <= p.cfg.Reputation.Tolerance {
			continue // an honest neighbour's usual spread
		}
		p.metrics.Outliers++
		p.logf("%s the model of %v (severity %.2f)", o.Action, o.From, o.Severity)
	}
}

// newWork registers w as the outstanding work.
func (p *Peer) newWork(w *Work) *Work {
	if w.kind == workAggregate {
		w.self.Origin = p.originOf(w.self.Params)
		p.markSuspended(w)
	}
	p.metrics.works++
	w.peer, w.seq = p, p.metrics.works
	p.work = w
	return w
}

// originOf is the point our last published round started training from
// (aggregate.Contribution.Origin) when params is that round's published
// model, else nil: the robust rules then run without our own step.
func (p *Peer) originOf(params []float32) []float32 {
	if p.mixed == nil || len(p.mixed) != len(params) || !slices.Equal(p.published, params) {
		return nil
	}
	return p.mixed
}
