package netlab

import (
	"flag"
	"strconv"
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
