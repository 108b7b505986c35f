//go:build js && wasm

package main

import (
	"fmt"
	"math"
	"sync"
	"syscall/js"
	"time"
)

// controls are the volunteer's say over the tab's training: pause, and
// a CPU share (duty cycle) the training keeps to. The page decides when
// to pause (its button, the tab hidden, the battery discharging:
// web/controls.js) and says why; here the training obeys, between its
// batches: controls.gate is the learner's yield hook. A paused tab parks
// its round at the next batch: the peer stays in the overlay, answers
// its neighbours and offers its published model (the MEP holds its next
// round while one is out), but trains nothing.
//
// The share is kept by measurement: the wall time the training spends
// between two of its yields (one batch) is busy time; each busy span
// adds span·(1-share)/share of rest owed, which the gate sleeps off
// once it reaches restSlice, and time the training is not running
// between rounds pays it off. given sums the busy time (the CPU time
// this volunteer has given, kept across reloads with the session).
type controls struct {
	mu     sync.Mutex
	paused bool
	reason string // why paused, in the page's words
	share  float64
	wake   chan struct{} // a setting changed: a parked gate looks again
	parked bool          // the training is waiting on a pause

	since   time.Time     // the gate last returned
	key     int           // the learner's rounds+failures then: a new key, a new round
	debt    time.Duration // rest owed for the share
	busy    time.Duration // busy time since the page loaded
	base    time.Duration // given before this page load (the session's)
	slept   time.Duration // rest the share took
	pausedT time.Duration // time parked
}

// restSlice is the rest owed before the gate sleeps: short enough that
// the page stays responsive, long enough that timers are not clamped.
const restSlice = 20 * time.Millisecond

// maxRest bounds one sleep (the page may change the share meanwhile).
const maxRest = 2 * time.Second

func newControls() *controls {
	return &controls{share: 1, wake: make(chan struct{}, 1)}
}

// set applies the page's settings: paused with its reason, and the share
// in (0, 1].
func (c *controls) set(paused bool, reason string, share float64) error {
	if math.IsNaN(share) || share <= 0 || share > 1 {
		return fmt.Errorf("CPU share %v: want a number in (0, 1]", share)
	}
	c.mu.Lock()
	if share != c.share {
		c.debt = 0
	}
	c.paused, c.reason, c.share = paused, reason, share
	if !paused {
		c.reason = ""
	}
	c.mu.Unlock()
	select { // never blocks: called on the event loop
	case c.wake <- struct{}{}:
	default:
	}
	return nil
}

func (c *controls) given() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.base + c.busy
}

func (c *controls) setGiven(ms int) {
	c.mu.Lock()
	c.base = time.Duration(ms) * time.Millisecond
	c.mu.Unlock()
}

// gate returns the learner's yield hook: it accounts the batch just
// trained, parks while paused, rests off the share's debt, and else
// yields to the event loop as maybe does. round reads the learner's
// rounds and failures (the first call of a round must not count the
// time between rounds as busy). Once done closes (the peer left) it
// parks no more: the round left over finishes and its goroutine ends.
func (c *controls) gate(maybe func(), round func() int, done <-chan struct{}) func() {
	return func() {
		now := time.Now()
		key := round()
		c.mu.Lock()
		if key == c.key && !c.since.IsZero() {
			span := now.Sub(c.since)
			c.busy += span
			if c.share < 1 {
				c.debt += time.Duration(float64(span) * (1 - c.share) / c.share)
			}
		} else {
			c.debt = max(0, c.debt-now.Sub(c.since)) // the pause between rounds was rest
			c.key = key
		}
		paused, debt := c.paused, c.debt
		c.mu.Unlock()
		switch {
		case paused:
			c.park(done)
		case debt >= restSlice:
			d := min(debt, maxRest)
			t0 := time.Now()
			time.Sleep(d) // a timer: the event loop runs meanwhile
			c.mu.Lock()
			c.debt = max(0, c.debt-time.Since(t0))
			c.slept += time.Since(t0)
			c.mu.Unlock()
		default:
			maybe()
		}
		c.mu.Lock()
		c.since = time.Now()
		c.mu.Unlock()
	}
}

// park waits while paused (woken by set, or every second to look
// again), or until done closes.
func (c *controls) park(done <-chan struct{}) {
	t0 := time.Now()
	c.mu.Lock()
	c.parked = true
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.parked = false
		c.pausedT += time.Since(t0)
		c.mu.Unlock()
	}()
	for {
		c.mu.Lock()
		p := c.paused
		c.mu.Unlock()
		if !p {
			return
		}
		select {
		case <-c.wake:
		case <-done:
			return
		case <-time.After(time.Second):
		}
	}
}

// controlsView is the page status's "controls".
type controlsView struct {
	Paused   bool    `json:"paused"`
	Reason   string  `json:"reason,omitempty"`
	Share    float64 `json:"share"`
	Parked   bool    `json:"parked"`    // the training is waiting on the pause now
	GivenMS  int64   `json:"given_ms"`  // busy training time, this session's before included
	BusyMS   int64   `json:"busy_ms"`   // busy training time since this page loaded
	RestMS   int64   `json:"rest_ms"`   // time the share rested the training
	PausedMS int64   `json:"paused_ms"` // time the training waited on a pause
}

func (c *controls) view() controlsView {
	c.mu.Lock()
	defer c.mu.Unlock()
	return controlsView{Paused: c.paused, Reason: c.reason, Share: c.share, Parked: c.parked,
		GivenMS: (c.base + c.busy).Milliseconds(), BusyMS: c.busy.Milliseconds(),
		RestMS: c.slept.Milliseconds(), PausedMS: c.pausedT.Milliseconds()}
}

// roundKey reads the learner's finished rounds (published or failed)
// for controls.gate; b.lp is set once build returns, before any round.
func (b *browserPeer) roundKey() int {
	b.mu.Lock()
	lp := b.lp
	b.mu.Unlock()
	if lp == nil {
		return -1
	}
	m := lp.Metrics()
	return m.Rounds + m.RoundsFailed
}

// addSessionAPI adds the page's session and control calls to the peer's
// JavaScript object:
//
//	setControls({paused, reason, share})  the volunteer's settings
//	exportState(since)  the session record (see resume.go), or null
//	               before a round, or when none after round since
//	importState(record)  true, or an Error saying why it is refused
func (b *browserPeer) addSessionAPI(obj js.Value) {
	report := b.reportError
	obj.Set("setControls", jsFunc("setControls", report, func(_ js.Value, args []js.Value) any {
		if len(args) == 0 || args[0].Type() != js.TypeObject {
			return jsError(fmt.Errorf("setControls: want {paused, reason, share}"))
		}
		o := args[0]
		share := 1.0
		if s := o.Get("share"); s.Type() == js.TypeNumber {
			share = s.Float()
		} else if s.Type() != js.TypeUndefined {
			return jsError(fmt.Errorf("setControls: share must be a number"))
		}
		if err := b.ctl.set(o.Get("paused").Truthy(), jsStr(o, "reason"), share); err != nil {
			return jsError(err)
		}
		return true
	}))
	obj.Set("exportState", jsFunc("exportState", report, func(_ js.Value, args []js.Value) any {
		since := -1
		if len(args) > 0 && args[0].Type() == js.TypeNumber {
			since = args[0].Int()
		}
		v, err := b.exportState(since)
		if err != nil {
			return jsError(err)
		}
		return v
	}))
	obj.Set("importState", jsFunc("importState", report, func(_ js.Value, args []js.Value) any {
		if len(args) == 0 {
			return jsError(fmt.Errorf("importState: no record"))
		}
		if err := b.importState(args[0]); err != nil {
			return jsError(err)
		}
		return true
	}))
}

// learnerYield is build's yield hook: the volunteer's controls around
// the 10 ms event-loop yield.
func (b *browserPeer) learnerYield() func() {
	b.mu.Lock()
	done := b.done // this run's: build runs inside it
	b.mu.Unlock()
	return b.ctl.gate(newYielder(10*time.Millisecond).Maybe, b.roundKey, done)
}
