package browser

import "testing"

// Which of the package's tests run side by side. A test that measures
// time or load on purpose runs alone, before the others, without
// calling parallel: TestBrowserBackgroundTab (Chromium's throttling
// window), TestBrowserControls (the tab's measured CPU share),
// TestTrainerWorker (frame gaps while the machine is loaded) and
// TestBenchBrowser (the benchmark). Every other test asserts a
// mechanism (joined, linked, trained above chance, the page says so)
// with waits bounded far above what it needs, and runs in parallel,
// `concurrent` at once unless go test's -parallel says otherwise
// (TestMain). Of those, the ones that start a swarm of native peers
// beside their tab (heavy) run one at a time among the others.

// concurrent is how many of the package's parallel tests run at once
// unless -parallel says otherwise (go test's default is GOMAXPROCS).
const concurrent = 3

// parallel marks a test that asserts mechanisms only: it runs beside the
// package's other such tests.
func parallel(t *testing.T) {
	t.Parallel()
}

// heavy holds the one running test of those that start a swarm (seven
// native peers beside a tab: TestBrowserPENS, TestBrowserPlexus): two
// such swarms side by side on a 2-core machine would slow each other's
// rounds for nothing.
var heavy = make(chan struct{}, 1)

// parallelHeavy is parallel for a test that starts a swarm: it runs
// beside the light tests, never beside another swarm.
func parallelHeavy(t *testing.T) {
	t.Parallel()
	heavy <- struct{}{}
	t.Cleanup(func() { <-heavy })
}
