package browser

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// TestBrowserBackgroundTab: a volunteer switches to another tab. Chromium
// then wakes the hidden page's timers about once a second (throttling is
// on in this test, as in a user's browser, and so is the intensive
// throttling that starts after 5 hidden minutes, here after 5 seconds),
// ten times less often than the overlay ticks. The hidden peer must stay
// in the overlay (its neighbours must not time it out) and keep training.
func TestBrowserBackgroundTab(t *testing.T) {
	bin := chromium(t)
	data := dataDir(t)
	peerBin, sigBin, wasmDir := build(t, data)
	srv := startE2EServer(t, sigBin, wasmDir)
	var natives []*proc
	for i := range 3 {
		natives = append(natives, startPeer(t, peerBin, fmt.Sprintf("native%d", i), srv.sigURL,
			"-task", srv.taskFile, "-data", data, "-shard", fmt.Sprintf("%d/6", 2*i),
			"-eval-every", "2s", "-eval-samples", "1000"))
	}
	url := fmt.Sprintf("%s/?task=%s&shard=1/6&evalEvery=2000&evalSamples=1000", srv.origin, srv.tid.Hex())
	tb := openTabThrottled(t, bin, "tab0", srv.origin, url, true)
	ctx, cancel := context.WithTimeout(tb.ctx, 10*time.Second)
	err := chromedp.Do(ctx, chromedp.Click("#join"))
	cancel()
	if err != nil {
		t.Fatalf("click Join: %v", err)
	}
	tabs := []*tab{tb}

	views := func() ([]peerView, string) {
		var out []peerView
		for _, p := range natives {
			v, err := nativeView(p)
			if err != nil {
				return nil, err.Error()
			}
			out = append(out, v)
		}
		for _, tb := range tabs {
			v, err := browserView(tb)
			if err != nil {
				return nil, err.Error()
			}
			out = append(out, v)
		}
		return out, checkOverlay(out, spaces)
	}
	var vs []peerView
	waitUntil(t, "an overlay of 4 with a training tab", 60*time.Second, 300*time.Millisecond, func() string {
		var why string
		if vs, why = views(); why == "" && vs[3].Rounds < 3 {
			why = fmt.Sprintf("the tab trained %d rounds", vs[3].Rounds)
		}
		return why
	})
	roundsVisible := vs[3].Rounds

	// Hide the peer's tab behind a new tab in its window.
	other, cancelOther := chromedp.NewContext(tb.ctx, chromedp.WithNewWindow(false))
	defer cancelOther()
	if err := chromedp.Do(other, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.CallBrowser(other, target.ActivateTarget,
		target.ActivateTargetParams{TargetID: chromedp.FromContext(other).Target.TargetID}); err != nil {
		t.Fatal(err)
	}
	if vis, err := evalJS[string](tb, `document.visibilityState`); err != nil || vis != "hidden" {
		t.Fatalf("peer tab visibility %q (%v), want hidden", vis, err)
	}
	// A chain of 100 ms timers in the hidden tab runs about once a second:
	// the throttling a volunteer's browser applies is really on. (On a page
	// without WebRTC the same chain, intensively throttled, runs once a
	// minute after the grace period; Chrome exempts pages with an open
	// data channel.)
	if _, err := evalJS[bool](tb, `(window.__wakes = 0, (function wake() { window.__wakes++; setTimeout(wake, 100) })(), true)`); err != nil {
		t.Fatal(err)
	}
	// Watched once a second for 20 s (10 periods): every second, the
	// hidden tab must still be in the overlay. A fixed window, not a
	// wait: the claim is that nothing goes wrong during it.
	const hidden = 20 * time.Second
	t0 := time.Now()
	bad, checks := 0, 0
	tick := time.NewTicker(time.Second)
	for time.Since(t0) < hidden {
		<-tick.C
		checks++
		switch vs, why := views(); {
		case vs == nil: // a status read failed (a loaded machine): no verdict
			t.Logf("%4.1f s hidden: %s", time.Since(t0).Seconds(), why)
		case why != "":
			bad++
			t.Logf("%4.1f s hidden: overlay not correct: %s", time.Since(t0).Seconds(), why)
		}
	}
	tick.Stop()
	wakes, err := evalJS[int](tb, `window.__wakes`)
	if err != nil {
		t.Fatal(err)
	}
	vs, why := views()
	if why != "" {
		t.Fatalf("after %v hidden: overlay not correct: %s", hidden, why)
	}
	rounds := vs[3].Rounds - roundsVisible
	t.Logf("hidden %v: a 100 ms timer woke %d times; overlay incorrect at %d of %d checks; the tab trained %d rounds (period 2 s), accuracy %.3f",
		hidden, wakes, bad, checks, rounds, vs[3].Accuracy)
	if wakes > int(hidden/time.Second)*3 {
		t.Fatalf("the hidden tab's timers woke %d times in %v: not throttled, the test proves nothing", wakes, hidden)
	}
	if bad > 0 {
		t.Errorf("the overlay lost the hidden tab at %d of %d checks", bad, checks)
	}
	// It keeps training while hidden. How many rounds it trains (all its
	// period's, catching up on the ticks its late timers skipped) is
	// peer/netpeer's TestTickClock's claim, on a fake clock: here a
	// count on two loaded cores would be a threshold.
	if rounds < 2 {
		t.Errorf("the hidden tab trained %d rounds in %v, want it to go on training", rounds, hidden)
	}
}
