package proctest

import (
	"testing"
	"time"
)

// WaitUntil calls check every `every` until it returns "" and returns how
// long that took; after timeout it fails the test with what and check's
// last answer. Bounded condition polling: an end-to-end test waits for
// what it asserts, never a fixed time.
func WaitUntil(t testing.TB, what string, timeout, every time.Duration, check func() (why string)) time.Duration {
	t.Helper()
	t0 := time.Now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		why := check()
		if why == "" {
			return time.Since(t0)
		}
		select {
		case <-deadline.C:
			t.Fatalf("%s: not after %v: %s", what, timeout, why)
		case <-tick.C:
		}
	}
}
