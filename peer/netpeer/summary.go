package netpeer

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/peerlearn/peerlearn/signal"
)

// Summaries to the signalling server (Config.ShareProgress, issue #24
// item 7): every Config.SummaryEvery the loop signs what the peer has done and
// hands it to a goroutine that writes it on the current registration's
// websocket, at most one in flight. A server that is gone, slow or
// refusing costs a failed count, never a tick: the overlay and training
// do not wait on it.

// DefaultSummaryEvery spaces a peer's summaries (Config.SummaryEvery;
// the server counts at most one per 10 s by default).
const DefaultSummaryEvery = 30 * time.Second

// summaryWrite bounds one summary's write.
const summaryWrite = 5 * time.Second

// summaries is the sender's state; next and seq are the loop's, the
// counters its goroutine's too.
type summaries struct {
	next         time.Time
	seq          uint64
	sending      atomic.Bool
	sent, failed atomic.Uint64
}

// SummaryStatus counts the summaries sent and those whose write failed
// (the server gone or slow; its refusals arrive as errors on the log).
type SummaryStatus struct {
	Sent   uint64 `json:"sent"`
	Failed uint64 `json:"failed"`
}

func (s *summaries) status(on bool) *SummaryStatus {
	if !on {
		return nil
	}
	return &SummaryStatus{Sent: s.sent.Load(), Failed: s.failed.Load()}
}

// watchSummary sends a summary when one is due.
func (p *Peer) watchSummary(now time.Time) {
	sm := &p.summaries
	if !p.cfg.ShareProgress || p.learner == nil || p.client == nil || now.Before(sm.next) {
		return
	}
	sm.next = now.Add(p.cfg.SummaryEvery)
	if !sm.sending.CompareAndSwap(false, true) {
		return // the last one is still being written: skip this one
	}
	ls := p.learner.status()
	sm.seq++
	s := &signal.Summary{Seq: sm.seq, Round: uint64(max(ls.Rounds, 0)), Accuracy: -1, Samples: p.learner.samples,
		BytesOut: p.mgr.Stats().BytesOut}
	if ls.Evals > 0 {
		s.Accuracy = min(max(ls.Accuracy, 0), 1)
	}
	signal.SignSummary(p.cfg.Identity, p.cfg.Task, s)
	client := p.client
	go func() {
		defer sm.sending.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), summaryWrite)
		defer cancel()
		if err := client.SendSummary(ctx, s); err != nil {
			sm.failed.Add(1)
			return
		}
		sm.sent.Add(1)
	}()
}
