package overlaysim

import (
	"context"
	"time"

	"github.com/peerlearn/peerlearn/internal/progress"
	"github.com/peerlearn/peerlearn/protocol/overlay"
)

// Sample is the overlay's correctness at one instant.
type Sample struct {
	T    time.Duration // virtual time since the churn event
	Live int
	overlay.Correctness
	// Control and Heartbeats are the NDMP messages sent since the event:
	// construction and repair (overlay.ConstructionTypes), and heartbeats.
	Control, Heartbeats uint64
}

// Trace is the overlay's recovery from one churn event.
type Trace struct {
	Samples []Sample // every Params.Every from the event on
	// Correct reports whether the overlay became exactly correct within
	// the limit, Took how long after the event that was (the first
	// correct sample).
	Correct bool
	Took    time.Duration
	// Held are the samples taken for Params.Hold after the first correct
	// one (not in Samples), HeldCorrect how many of them were exactly
	// correct.
	Held, HeldCorrect int
	HeldFor           time.Duration
}

// HeldFraction is the fraction of the hold samples that were correct.
func (t Trace) HeldFraction() float64 {
	if t.Held == 0 {
		return 1
	}
	return float64(t.HeldCorrect) / float64(t.Held)
}

// hold keeps sampling k's cluster for d after it became correct.
func (t *Trace) hold(ctx context.Context, k *checker, every, d time.Duration) {
	for start := k.c.Now(); k.c.Now()-start < d && ctx.Err() == nil; {
		k.c.RunFor(every)
		t.Held++
		t.HeldFor += every
		if k.check().OK() {
			t.HeldCorrect++
		}
	}
}

// Final is the last sample.
func (t Trace) Final() Sample { return t.Samples[len(t.Samples)-1] }

// Min is the sample with the lowest correctness (the drop).
func (t Trace) Min() Sample {
	m := t.Samples[0]
	for _, s := range t.Samples {
		if s.Fraction() < m.Fraction() {
			m = s
		}
	}
	return m
}

// trace samples the correctness of k's cluster every `every`, starting
// now (the event instant), until it is exactly correct or limit has
// passed.
func trace(ctx context.Context, k *checker, every, limit time.Duration, bar *progress.Bar) Trace {
	c := k.c
	start, sent0 := c.Now(), c.Sent()
	var tr Trace
	for {
		cr := k.check()
		sent := c.Sent()
		tr.Samples = append(tr.Samples, Sample{
			T: c.Now() - start, Live: cr.Nodes, Correctness: cr,
			Control:    sent.Total(overlay.ConstructionTypes...) - sent0.Total(overlay.ConstructionTypes...),
			Heartbeats: sent[overlay.MsgHeartbeat] - sent0[overlay.MsgHeartbeat],
		})
		bar.Set(int64((c.Now()-start)/time.Millisecond), 0)
		if cr.OK() {
			tr.Correct, tr.Took = true, c.Now()-start
			return tr
		}
		if c.Now()-start >= limit || ctx.Err() != nil {
			tr.Took = c.Now() - start
			return tr
		}
		c.RunFor(every)
	}
}

// recovery traces the recovery from the churn event just injected, with
// a progress bar over the limit.
func recovery(ctx context.Context, p Params, k *checker, event string) Trace {
	total := int64(p.Limit / time.Millisecond)
	bar := p.bar("recover ("+event+"), virtual ms", int(total))
	tr := trace(ctx, k, p.Every, p.Limit, bar)
	if tr.Correct {
		bar.Set(total, 0)
	}
	bar.Finish()
	if tr.Correct && p.Hold > 0 {
		tr.hold(ctx, k, p.Every, p.Hold)
	}
	return tr
}
