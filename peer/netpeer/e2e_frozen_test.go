//go:build !js

package netpeer

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/proctest"
)

// TestE2EFrozenPeerComesBack: a peer process is frozen (SIGSTOP: a laptop
// that sleeps, a phone that freezes a background tab) for longer than its
// neighbours' failure timeout and their grace for stray connections, so
// they drop it and close its connections. When it thaws it finds every
// neighbour gone and no open connection: it must bootstrap again through
// the signalling server and the overlay must be correct with it.
func TestE2EFrozenPeerComesBack(t *testing.T) {
	peerBin, sigBin := binaries(t)
	const n, spaces = 6, 2
	tf := taskFile(t, "e2e-frozen", spaces)
	addr := proctest.FreeAddr(t)
	proctest.Start(t, "signalserver", sigBin, []string{"-addr", addr, "-no-web", "-task", tf, "-admission-key", admissionKeyFile(tf)}, nil)
	proctest.WaitTCP(t, addr)
	url := "ws://" + addr + "/signal"
	var peers []*proc
	for i := range n {
		peers = append(peers, startPeer(t, peerBin, fmt.Sprintf("peer%d", i), url, "-task", tf))
		time.Sleep(100 * time.Millisecond)
	}
	waitCorrect(t, peers, spaces, 40*time.Second)

	frozen := peers[n-1]
	if err := frozen.Cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitCorrect(t, peers[:n-1], spaces, 40*time.Second)
	time.Sleep(12 * time.Second) // past rtc's 10 s grace: the others close their links to it
	if err := frozen.Cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	sts := waitCorrect(t, peers, spaces, 40*time.Second)
	// That includes RebootstrapAfter (5 s) and the others' 10 s grace
	// before they close the stray connections the rejoin opened.
	t.Logf("%s thawed: the overlay of %d is correct again, connections included, in %v", frozen.ID[:8], n, time.Since(t0).Round(time.Millisecond))
	if r := sts[n-1].Rebootstraps; r != 1 {
		t.Errorf("the thawed peer registered again %d times, want 1", r)
	}
}
