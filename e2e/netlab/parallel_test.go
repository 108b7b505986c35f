package netlab

import (
	"flag"
	"strconv"
	"sync"
	"testing"
)

// Which of the package's tests run side by side. Every lab is its own set
// of namespaces (Lab.Prefix: the process ID and a run counter), with its
// own internet, routers, TURN server and signalling server, so two labs
// share nothing but the CPU. The tests' peers mostly wait (ICE checks,
// the overlay's periods): the package used about 0.4 of the machine's 2
// cores run one test at a time. Every test but one asserts a mechanism
// (paths, links, training above chance) with waits bounded far above what
// it needs, and runs in parallel, `concurrent` at once unless go test's
// -parallel says otherwise. TestShapedLinkDelaysAndDrops measures round
// trips against the shaped delay, so it runs alone, before the others.

// concurrent is how many of the package's parallel tests run at once
// unless -parallel says otherwise (go test's default is GOMAXPROCS).
const concurrent = 3

// parallel marks a test that asserts mechanisms only: it runs beside the
// package's other such tests.
func parallel(t *testing.T) {
	t.Parallel()
}

// defaultParallel sets -test.parallel to concurrent unless the command
// line gave it.
func defaultParallel() {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		flag.Set("test.parallel", strconv.Itoa(concurrent))
	}
}

// tabsTurn is held by the test whose Chromium tabs train (withTabs).
var tabsTurn sync.Mutex

// withTabs marks a parallel test whose Chromium tabs join a task and
// train: it runs beside the native tests but never beside another such
// test. Three tabs are Chromium's renderers plus the page's wasm peer
// each; the two such tests side by side (six tabs, besides the labs' native
// peers and make test's wasm tests) held the 2 cores' load average near
// 17, and then a tab's page stopped answering for minutes or a tab-to-tab
// pair behind port-restricted cones never connected
// (TestNetlabBrowserCones failed twice in a row under that load; alone it
// passes in 20-32 s).
func withTabs(t *testing.T) {
	tabsTurn.Lock()
	t.Cleanup(tabsTurn.Unlock)
}
