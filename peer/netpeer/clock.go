package netpeer

import "time"

// tickClock turns a ticker's firings into the overlay ticks that are due.
// A time.Ticker drops the ticks it could not deliver, so a peer whose
// timer fires late would run fewer ticks than time passed: its heartbeats
// and MEP rounds would slow down. Chromium wakes a background tab's
// timers about once a second, ten ticks' worth.
type tickClock struct {
	period time.Duration
	max    int       // ticks run at most per call
	next   time.Time // when the next tick is due
}

// due returns how many ticks are due at now (at most max) and moves on by
// that many; if more were due, the rest are skipped and ticking resumes
// from now.
func (c *tickClock) due(now time.Time) int {
	n := 0
	for !now.Before(c.next) && n < c.max {
		c.next = c.next.Add(c.period)
		n++
	}
	if !now.Before(c.next) {
		c.next = now.Add(c.period)
	}
	return n
}
