package simnet

import (
	"fmt"
	"time"
)

// Scheduler runs events in virtual-time order. Events at the same time run
// in the order they were scheduled (a sequence number breaks ties), so a
// run is deterministic. Not safe for concurrent use: events run one at a
// time on the caller's goroutine and may schedule more.
type Scheduler struct {
	now  time.Duration
	seq  uint64
	q    []event // binary min-heap on (at, seq)
	runs uint64
}

type event struct {
	at  time.Duration
	seq uint64
	fn  func()
}

func (a event) before(b event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// NewScheduler returns a scheduler at virtual time 0.
func NewScheduler() *Scheduler { return &Scheduler{} }

// Now returns the current virtual time.
func (s *Scheduler) Now() time.Duration { return s.now }

// Pending returns the number of events not yet run.
func (s *Scheduler) Pending() int { return len(s.q) }

// Executed returns the number of events run so far.
func (s *Scheduler) Executed() uint64 { return s.runs }

// At schedules fn at virtual time t (not before Now).
func (s *Scheduler) At(t time.Duration, fn func()) error {
	if t < s.now {
		return fmt.Errorf("%w: %v < now %v", ErrPast, t, s.now)
	}
	s.push(event{at: t, seq: s.seq, fn: fn})
	s.seq++
	return nil
}

// After schedules fn d from now; a negative d counts as 0.
func (s *Scheduler) After(d time.Duration, fn func()) {
	s.push(event{at: s.now + max(d, 0), seq: s.seq, fn: fn})
	s.seq++
}

// Step runs the next event, advancing Now to its time. It reports false
// if there was none.
func (s *Scheduler) Step() bool {
	if len(s.q) == 0 {
		return false
	}
	e := s.pop()
	s.now = e.at
	s.runs++
	e.fn()
	return true
}

// RunUntil runs every event due at or before t, then sets Now to t (if t
// is later). It returns the number of events run.
func (s *Scheduler) RunUntil(t time.Duration) int {
	k := 0
	for len(s.q) > 0 && s.q[0].at <= t {
		s.Step()
		k++
	}
	s.now = max(s.now, t)
	return k
}

// RunFor runs the events of the next d of virtual time.
func (s *Scheduler) RunFor(d time.Duration) int { return s.RunUntil(s.now + d) }

func (s *Scheduler) push(e event) {
	s.q = append(s.q, e)
	i := len(s.q) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s.q[i].before(s.q[p]) {
			break
		}
		s.q[i], s.q[p] = s.q[p], s.q[i]
		i = p
	}
}

func (s *Scheduler) pop() event {
	top := s.q[0]
	last := len(s.q) - 1
	s.q[0] = s.q[last]
	s.q[last] = event{}
	s.q = s.q[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && s.q[l].before(s.q[m]) {
			m = l
		}
		if r < last && s.q[r].before(s.q[m]) {
			m = r
		}
		if m == i {
			return top
		}
		s.q[i], s.q[m] = s.q[m], s.q[i]
		i = m
	}
}
