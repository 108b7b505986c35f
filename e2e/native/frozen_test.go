//go:build !js

package native

import (
	"syscall"
	"testing"
	"time"
)

// TestE2EFrozenPeerComesBack: a peer process is frozen (SIGSTOP: a laptop
// that sleeps, a phone that freezes a background tab) for longer than its
// neighbours' failure timeout and their grace for stray connections, so
// they drop it and close its connections. When it thaws it finds every
// neighbour gone and no open connection: it must bootstrap again through
// the signalling server and the overlay must be correct with it.
func TestE2EFrozenPeerComesBack(t *testing.T) {
	parallel(t)
	peerBin, sigBin := binaries(t)
	const n, spaces = 6, 2
	tf := taskFile(t, "e2e-frozen", spaces)
	_, url := startServer(t, sigBin, "signalserver", tf)
	// Without -bridge-alone never, a peer's bridge (a registration
	// again, twice in its first minutes, whose welcome may list the
	// frozen peer: still registered, its websocket open) can offer to it
	// through the server while it thaws, and it comes back without
	// registering again: that happened in CI. This test is about the
	// thawed peer's own way back; bridges are TestE2EPartitionHeals'.
	peers := startPeers(t, peerBin, "peer", url, n, func(int) []string { return []string{"-task", tf, "-bridge-alone", "never"} })
	waitCorrect(t, peers, spaces, 60*time.Second)

	frozen := peers[n-1]
	if err := frozen.Cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	// The others drop it (their overlay is correct without it, which
	// waitCorrect checks connections included: they closed its links,
	// after rtc's 10 s grace).
	waitCorrect(t, peers[:n-1], spaces, 60*time.Second)
	t.Logf("%s frozen: the others repaired and closed its links in %v", frozen.ID[:8], time.Since(t0).Round(time.Millisecond))
	if err := frozen.Cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	sts := waitLinked(t, peers, spaces, 60*time.Second)
	// That includes RebootstrapAfter (5 s). (Not the others' 10 s grace
	// before they close the stray connections the rejoin opened: the
	// grace is TestE2EKillQuarter's, whose overlay is correct with
	// connections = neighbours.)
	t.Logf("%s thawed: the overlay of %d is correct again, every neighbour connected, in %v", frozen.ID[:8], n, time.Since(t1).Round(time.Millisecond))
	// It came back by registering again: at least once. When and how
	// often a cut-off peer registers again (RebootstrapAfter, the
	// backoff, one attempt at a time) is peer/node's golden script
	// testdata/registrar-rebootstrap.txt, on a script clock; on a loaded
	// machine a join slower than RebootstrapAfter may take a second.
	if r := sts[n-1].Rebootstraps; r < 1 {
		t.Errorf("the thawed peer rejoined without registering again (%d re-registrations)", r)
	} else if r > 1 {
		t.Logf("the thawed peer registered again %d times", r)
	}
}
