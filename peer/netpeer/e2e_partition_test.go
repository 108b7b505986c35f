//go:build !js

package netpeer

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/proctest"
)

var (
	cutBuildOnce sync.Once
	cutBin       string
	cutBuildErr  error
)

// cutBinary builds `peerlearn` with the test-only partition hook
// (-tags cuttest, cut_hook.go) once per test run.
func cutBinary(t *testing.T) string {
	t.Helper()
	binaries(t) // skips with -short; makes binDir
	cutBuildOnce.Do(func() {
		cutBin = filepath.Join(binDir, "peerlearn-cuttest")
		out, err := exec.Command("go", "build", "-tags", "cuttest", "-o", cutBin, "../../cmd/peerlearn").CombinedOutput()
		if err != nil {
			cutBuildErr = fmt.Errorf("go build -tags cuttest: %v\n%s", err, out)
		}
	})
	if cutBuildErr != nil {
		t.Fatal(cutBuildErr)
	}
	return cutBin
}

// waitNeighbours polls until the peers' neighbour sets are the correct
// ones for exactly these peers (connections not checked).
func waitNeighbours(t *testing.T, peers []*proc, spaces int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		sts := make([]Status, len(peers))
		var err error
		for i, p := range peers {
			if sts[i], err = fetchStatus(p.Status); err != nil {
				break
			}
		}
		why := ""
		if err != nil {
			why = err.Error()
		} else if why = checkOverlay(sts, spaces); why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("neighbour sets not correct after %v: %s", timeout, why)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// TestE2EPartitionHeals cuts 8 peer processes into two halves of 4 (each
// drops every overlay message to and from the other half: the test-only
// hook of cut_hook.go), waits until each half has repaired into a correct
// overlay of its own, heals the cut and checks that the halves merge into
// one correct overlay of all 8 within 60 s: at once ("short") and after
// holding the cut 15 s more ("long"), past rtc's 10 s grace, when the
// transport has closed the connections across the cut.
//
// The overlay's merge probes (protocol/overlay merge.go) need a
// connection to the remembered node; once the connections across are
// closed a new one cannot be signalled over the overlay, which does not
// reach across. What heals it is the peers' default -bridge-alone
// when-split: a peer whose overlay remembers failed neighbours that are
// not back registers with the server again and joins through its
// contacts, which are on either side; here every 10 s (-bridge-every; the
// default is a minute). Before that default (re-registration off unless
// asked for) the long cut did not merge in 60 s (1 run of 1), and even a
// half could stay split into two pairs (2 runs of 5), its own fragments
// needing a merge too. Neighbour sets are checked, not connections: every
// re-registration opens one to a contact that may not be a neighbour,
// closed after the 10 s grace.
func TestE2EPartitionHeals(t *testing.T) {
	t.Run("short", func(t *testing.T) { testPartitionHeals(t, 0) })
	t.Run("long", func(t *testing.T) { testPartitionHeals(t, 15*time.Second) })
}

// testPartitionHeals holds the cut for hold after both halves repaired.
func testPartitionHeals(t *testing.T, hold time.Duration) {
	bin := cutBinary(t)
	_, sigBin := binaries(t)
	const n, spaces = 8, 2
	tf := taskFile(t, "e2e-partition", spaces)
	addr := proctest.FreeAddr(t)
	proctest.Start(t, "signalserver", sigBin, []string{"-addr", addr, "-no-web", "-task", tf, "-admission-key", admissionKeyFile(tf)}, nil)
	proctest.WaitTCP(t, addr)
	url := "ws://" + addr + "/signal"
	dir := t.TempDir()
	cuts := make([]string, n)
	var peers []*proc
	for i := range n {
		cuts[i] = filepath.Join(dir, fmt.Sprintf("cut%d", i))
		t.Setenv("PEERLEARN_TEST_CUT", cuts[i])
		peers = append(peers, startPeer(t, bin, fmt.Sprintf("peer%d", i), url, "-task", tf, "-bridge-every", "10s"))
		time.Sleep(100 * time.Millisecond)
	}
	waitNeighbours(t, peers, spaces, 40*time.Second)

	left, right := peers[:n/2], peers[n/2:]
	ids := func(ps []*proc) string {
		var s []string
		for _, p := range ps {
			s = append(s, p.ID)
		}
		return strings.Join(s, "\n")
	}
	for i := range n {
		other := right
		if i >= n/2 {
			other = left
		}
		if err := os.WriteFile(cuts[i], []byte(ids(other)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now()
	waitNeighbours(t, left, spaces, 40*time.Second)
	waitNeighbours(t, right, spaces, 40*time.Second)
	t.Logf("cut into halves of %d: each half a correct overlay of its own in %v", n/2, time.Since(t0).Round(time.Millisecond))
	time.Sleep(hold)

	for i := range n {
		if err := os.Remove(cuts[i]); err != nil {
			t.Fatal(err)
		}
	}
	t1 := time.Now()
	waitNeighbours(t, peers, spaces, 60*time.Second)
	t.Logf("healed after %v of cut: one correct overlay of %d (neighbour sets) %v after the heal",
		t1.Sub(t0).Round(time.Millisecond), n, time.Since(t1).Round(time.Millisecond))
}
