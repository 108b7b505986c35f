package netpeer

import (
	"testing"
	"time"
)

func TestTickClock(t *testing.T) {
	t0 := time.Unix(1000, 0)
	c := tickClock{period: 100 * time.Millisecond, max: 30, next: t0.Add(100 * time.Millisecond)}
	for _, s := range []struct {
		at   time.Duration // since t0
		want int
	}{
		{50 * time.Millisecond, 0},    // early
		{100 * time.Millisecond, 1},   // on time
		{210 * time.Millisecond, 1},   // slightly late: one tick
		{1250 * time.Millisecond, 10}, // a throttled wake-up a second later: 300..1200
		{1300 * time.Millisecond, 1},
		{1300 * time.Millisecond, 0},              // the same instant again
		{60 * time.Second, 30},                    // asleep: at most max ...
		{60*time.Second + 50*time.Millisecond, 0}, // ... then time resumes from now
		{60*time.Second + 100*time.Millisecond, 1},
	} {
		if got := c.due(t0.Add(s.at)); got != s.want {
			t.Errorf("at %v: %d ticks, want %d", s.at, got, s.want)
		}
	}
}
