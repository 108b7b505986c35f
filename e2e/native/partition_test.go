//go:build !js

package native

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/proctest"
)

// cutBinary is cmd/peerlearn built with the test-only partition hook
// (-tags cuttest, peer/netpeer's cut_hook.go: PEERLEARN_TEST_CUT names
// a file of peer IDs whose overlay messages the peer drops).
func cutBinary(t *testing.T) string {
	t.Helper()
	return proctest.Binary(t, "peerlearn-cuttest", "../../cmd/peerlearn", "cuttest")
}

// TestE2EPartitionHeals cuts 8 peer processes into two halves of 4 (each
// drops every overlay message to and from the other half: the test-only
// hook of cut_hook.go), waits until each half has repaired into a correct
// overlay of its own, heals the cut and checks that the halves merge into
// one correct overlay of all 8: first at once ("short"), then, on the
// same peers, after holding a second cut until the transport has closed
// every connection across it ("long": rtc's 10 s grace for connections
// that are no neighbour's). (Two swarms before, one per cut.) The bounds are generous, the
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
	parallel(t)
	bin := cutBinary(t)
	_, sigBin := binaries(t)
	const n, spaces = 8, 2
	const bound = 90 * time.Second
	tf := taskFile(t, "e2e-partition", spaces)
	_, url := startServer(t, sigBin, "signalserver", tf)
	dir := t.TempDir()
	cuts := make([]string, n)
	peers := make([]*proc, n)
	for i := range peers {
		cuts[i] = filepath.Join(dir, fmt.Sprintf("cut%d", i))
		peers[i] = startPeer(t, bin, fmt.Sprintf("peer%d", i), url, []string{"-task", tf, "-bridge-every", "10s"}, "PEERLEARN_TEST_CUT="+cuts[i])
	}
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
		name  string
		apart bool // held until no connection crosses the cut
	}{{"short", false}, {"long", true}} {
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
		if c.apart {
			// The long cut outlasts rtc's grace for connections that are
			// no neighbour's: held until the transport has closed every
			// one across the cut, as /status shows.
			took := pollUntil(t, bound, 500*time.Millisecond, func() (bool, string) {
				sts, err := statuses(peers)
				if err != nil {
					return false, err.Error()
				}
				for i, s := range sts {
					other := right
					if i >= n/2 {
						other = left
					}
					for _, o := range other {
						if slices.Contains(s.Connections, o.ID) {
							return false, fmt.Sprintf("%s still connected across the cut to %s", s.ID[:8], o.ID[:8])
						}
					}
				}
				return true, ""
			})
			t.Logf("%s: no connection across the cut %v after the halves were correct", c.name, took.Round(time.Millisecond))
		}

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
