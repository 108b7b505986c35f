package netpeer

import (
	"testing"
	"time"
)

// TestThrottledTimerKeepsNeighbours: a peer whose loop timer fires only
// every 2 s keeps its neighbours, and they keep it. That is a hidden tab
// on a loaded machine: Chromium wakes a hidden page's timers once a
// second, and a page busy at one wake-up waits for the next. Its ticks
// run when its neighbours' messages wake it (peer.go's loop), so their
// heartbeats count when they arrive; run only by the timer, the 20 ticks
// of a 2 s sleep ran at once after heartbeats counted at the tick before
// it, and timed out every neighbour (the overlay's failure floor is 15
// ticks). TestBrowserBackgroundTab checks the same in Chromium, where
// the throttling is real but its timing is the browser's.
func TestThrottledTimerKeepsNeighbours(t *testing.T) {
	url, tid := startSignal(t, "netpeer-throttled")
	log := &testLog{}
	const n = 4
	peers := runPeers(t, n, 150*time.Millisecond, log, func(i int) Config {
		cfg := testPeerConfig(t, url, tid, i+1, log)
		if i == n-1 {
			cfg.wakeEvery = 2 * time.Second
		}
		return cfg
	})
	check := func() string {
		sts := make([]Status, n)
		for i, p := range peers {
			sts[i] = p.Status()
		}
		return WrongNeighbours(sts, DefaultConfig().Overlay.Spaces)
	}
	pollUntil(t, 60*time.Second, 200*time.Millisecond, func() (bool, string) {
		why := check()
		return why == "", "overlay not correct: " + why
	})
	// A fixed window of five of the throttled peer's timer wake-ups: the
	// claim is that nothing goes wrong during it.
	const window = 10 * time.Second
	slow := peers[n-1]
	ticks0, t0 := slow.Status().Ticks, time.Now()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	bad, checks := 0, 0
	for time.Since(t0) < window {
		<-tick.C
		checks++
		if why := check(); why != "" {
			bad++
			t.Logf("%4.1f s: overlay not correct: %s", time.Since(t0).Seconds(), why)
		}
	}
	ticks := slow.Status().Ticks - ticks0
	t.Logf("throttled peer: %d ticks in %v (timer every 2 s); overlay incorrect at %d of %d checks", ticks, window, bad, checks)
	if bad > 0 {
		t.Errorf("the overlay lost a neighbour of the throttled peer at %d of %d checks", bad, checks)
	}
	if want := int64(window/DefaultConfig().Tick) / 2; ticks < want {
		t.Errorf("the throttled peer ran %d ticks in %v, want at least %d", ticks, window, want)
	}
}
