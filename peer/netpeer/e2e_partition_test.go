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
func waitNeighbours(t *testing.T, peers []*proc, spaces int, bound time.Duration) time.Duration {
	t.Helper()
	return pollUntil(t, bound, 250*time.Millisecond, func() (bool, string) {
		sts, err := statuses(peers)
		if err != nil {
			return false, err.Error()
		}
		why := checkOverlay(sts, spaces)
		return why == "", "neighbour sets not correct: " + why
	})
}

// TestE2EPartitionHeals cuts 8 peer processes into two halves of 4 (each
// drops every overlay message to and from the other half: the test-only
// hook of cut_hook.go), waits until each half has repaired into a correct
// overlay of its own, heals the cut and checks that the halves merge into
// one correct overlay of all 8: first at once ("short"), then, on the
// same peers, after holding a second cut 15 s more ("long"), past rtc's
// 10 s grace, when the transport has closed the connections across the
// cut. (Two swarms before, one per cut.) The bounds are generous, the
// mechanism is what is checked: a merge on virtual time, over 40 nodes,
// is sim/overlaysim's TestPartitionSmall.
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
	bin := cutBinary(t)
	_, sigBin := binaries(t)
	const n, spaces = 8, 2
	const bound = 90 * time.Second
	tf := taskFile(t, "e2e-partition", spaces)
	_, url := startServer(t, sigBin, "signalserver", tf)
	dir := t.TempDir()
	cuts := make([]string, n)
	peers := startPeers(t, bin, "peer", url, n, func(i int) []string {
		cuts[i] = filepath.Join(dir, fmt.Sprintf("cut%d", i))
		t.Setenv("PEERLEARN_TEST_CUT", cuts[i])
		return []string{"-task", tf, "-bridge-every", "10s"}
	})
	waitNeighbours(t, peers, spaces, bound)

	left, right := peers[:n/2], peers[n/2:]
	ids := func(ps []*proc) string {
		var s []string
		for _, p := range ps {
			s = append(s, p.ID)
		}
		return strings.Join(s, "\n")
	}
	for _, c := range []struct {
		name string
		hold time.Duration
	}{{"short", 0}, {"long", 15 * time.Second}} {
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
		waitNeighbours(t, left, spaces, bound)
		waitNeighbours(t, right, spaces, bound)
		t.Logf("%s: cut into halves of %d: each half a correct overlay of its own in %v", c.name, n/2, time.Since(t0).Round(time.Millisecond))
		// The long cut must outlast rtc's grace for connections that
		// are no neighbour's: only time passing does that.
		time.Sleep(c.hold)

		for i := range n {
			if err := os.Remove(cuts[i]); err != nil {
				t.Fatal(err)
			}
		}
		t1 := time.Now()
		took := waitNeighbours(t, peers, spaces, bound)
		t.Logf("%s: healed after %v of cut: one correct overlay of %d (neighbour sets) %v after the heal",
			c.name, t1.Sub(t0).Round(time.Millisecond), n, took.Round(time.Millisecond))
	}
}
