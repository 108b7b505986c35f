package learn

import "slices"

// markSuspended marks the round's neighbours whose drift sums are over
// the limit in the test's Suspend form (aggregate.DriftConfig.Suspend):
// the robust rule measures their models and leaves them out of the
// average, and Finish counts them. Called when the work is made, on the
// caller's goroutine, like every read of the reputation. The others are
// copied before the first mark: the slice may be the exchange's.
func (p *Peer) markSuspended(w *Work) {
	copied := false
	for j := range w.others {
		if !p.reputation.Suspended(w.others[j].From) {
			continue
		}
		if !copied {
			w.others, copied = slices.Clone(w.others), true
		}
		w.others[j].Suspended = true
	}
}

// countSuspended counts and logs the neighbours a finished round left
// out for their drift.
func (p *Peer) countSuspended(w *Work) {
	for _, c := range w.others {
		if c.Suspended {
			p.metrics.Suspended++
			p.logf("left out the model of %v: its pulls back against our step have added up (drift test, suspended)", c.From)
		}
	}
}
