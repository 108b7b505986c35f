package mep

import "fmt"

// Restore publishes params as the peer's model and counts rounds rounds
// as already trained: a peer restarting with the model it trained before
// (a browser tab reloaded or reopened) offers that model at once, its
// next round aggregates from it, and Config.MaxRounds counts the rounds
// before the restart. That round is due at the next tick, not a period
// later: the last one ended before the restart. Only before the first
// round and the first model.
func (p *Peer) Restore(params []float32, rounds uint64) error {
	if p.roundSeq != 0 || p.version != 0 || p.inRound {
		return fmt.Errorf("%w: Restore after the first round", ErrBadReport)
	}
	if _, err := p.ReportTrained(params, nil); err != nil {
		return err
	}
	p.roundSeq = rounds
	p.nextRound = p.now + 1
	return nil
}
