package native

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/peer/netpeer"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
)

// TestE2EKillQuarter runs the signalling server and 8 `peerlearn peer`
// processes (overlay only): (a) they bootstrap through the server into
// the correct overlay (neighbour sets = overlay.ExpectedTables of their
// IDs, connections = neighbours); (b) the server is stopped and a
// quarter of the peers (2, drawn from a seeded generator) are SIGKILLed
// at once: the survivors return to the correct overlay, every new
// connection signalled through the overlay itself; (c) a survivor leaves
// on SIGTERM and the rest is correct again. Peer keys come from the same
// seed, so a failure replays with the same IDs (the victims are the
// first draw whose death needs a new connection, which depends on the
// places the server admitted the peers at);
// PEERLEARN_KILL_SEED=N runs another draw. (It was two tests, this and
// TestE2EOverlayBootstrapKillAndLeave, which bootstrapped 10 more peers
// for (a), one kill and (c).) The overlay's repair at scale is on
// virtual time: sim/overlaynet's TestClusterGrowFailRepair (10 of 40
// crashed), sim/overlaysim's TestFailuresSmall.
func TestE2EKillQuarter(t *testing.T) {
	parallel(t)
	peerBin, sigBin := binaries(t)
	const (
		n, killed, spaces = 8, 2, 3
		bound             = 60 * time.Second
	)
	seed := uint64(20250601)
	if v := os.Getenv("PEERLEARN_KILL_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("PEERLEARN_KILL_SEED=%q: %v", v, err)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x6b696c6c))
	keyDir := t.TempDir()

	tf := taskFile(t, "e2e-kill", spaces)
	srv, url := startServer(t, sigBin, "signalserver", tf)
	t0 := time.Now()
	peers := startPeers(t, peerBin, "peer", url, n, func(i int) []string {
		key := make([]byte, 32)
		for j := range key {
			key[j] = byte(rng.Uint32())
		}
		keyFile := filepath.Join(keyDir, fmt.Sprintf("peer%d.key", i))
		if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return []string{"-task", tf, "-key", keyFile}
	})
	sts := waitCorrect(t, peers, spaces, bound)
	t.Logf("(a) %d peers bootstrapped into a correct overlay in %v", n, time.Since(t0).Round(time.Millisecond))

	// Without the server every repair connection is signalled through
	// the overlay.
	srv.Stop(t)

	// The victims: the first draw whose death needs a new connection
	// (two survivors that become neighbours and are not now). The
	// overlay's places come from the server's admission (a key made per
	// run), so which draw that is varies from run to run.
	var victims []int
	dead := map[string]bool{}
	fresh := 0
	for draw := 0; fresh == 0; draw++ {
		if draw == 100 {
			t.Fatalf("seed %d: no draw of %d victims in 100 needs a new connection", seed, killed)
		}
		victims = rng.Perm(n)[:killed]
		slices.Sort(victims)
		clear(dead)
		for _, k := range victims {
			dead[peers[k].ID] = true
		}
		fresh = newLinks(t, sts, dead, spaces)
	}
	var rest []*proc
	for _, p := range peers {
		if !dead[p.ID] {
			rest = append(rest, p)
		}
	}
	before := map[string]uint64{}
	for _, s := range sts {
		before[s.ID] = s.RTC.SignalsDelivered
	}

	t1 := time.Now()
	for _, k := range victims {
		if err := peers[k].Cmd.Process.Kill(); err != nil {
			t.Fatalf("SIGKILL %s: %v", peers[k].Name, err)
		}
	}
	for _, k := range victims {
		peers[k].Kill() // waits for its exit
	}
	sts = waitCorrect(t, rest, spaces, bound)
	repair := time.Since(t1)

	var routed uint64
	for _, s := range sts {
		routed += s.RTC.SignalsDelivered - before[s.ID]
		for _, nb := range append(slices.Clone(s.Neighbors), s.Connections...) {
			if dead[nb] {
				t.Errorf("%s still lists killed peer %s", s.ID[:8], nb[:8])
			}
		}
	}
	names := make([]string, len(victims))
	for i, k := range victims {
		names[i] = peers[k].Name + "=" + peers[k].ID[:8]
	}
	t.Logf("(b) seed %d: server stopped, %d of %d peers SIGKILLed (%v): %d survivors correct again in %v (bound %v); "+
		"%d new neighbour pairs, %d sessions delivered through the overlay since",
		seed, killed, n, names, len(rest), repair.Round(time.Millisecond), bound, fresh, routed)
	if routed == 0 {
		t.Errorf("no connection was signalled through the overlay after the kill")
	}

	leaver := rest[0]
	t2 := time.Now()
	leaver.Stop(t)
	waitCorrect(t, rest[1:], spaces, bound)
	t.Logf("(c) %s left gracefully: correct again in %v", leaver.ID[:8], time.Since(t2).Round(time.Millisecond))
}

// newLinks counts the neighbour pairs of the correct overlay without the
// dead peers that are not neighbours in the current (correct) overlay:
// connections the repair has to make.
func newLinks(t *testing.T, sts []Status, dead map[string]bool, spaces int) int {
	t.Helper()
	var all, alive []ident.Peer
	for _, s := range sts {
		var id ident.Peer
		b, err := hex.DecodeString(s.ID)
		if err != nil || len(b) != len(id) {
			t.Fatalf("status ID %q", s.ID)
		}
		copy(id[:], b)
		all = append(all, id)
		if !dead[s.ID] {
			alive = append(alive, id)
		}
	}
	place := netpeer.PlacementOf(sts)
	now := overlay.ExpectedTablesAt(all, spaces, place)
	n := 0
	for id, tb := range overlay.ExpectedTablesAt(alive, spaces, place) {
		for _, nb := range tb.Neighbors() {
			if id.Less(nb) && !slices.Contains(now[id].Neighbors(), nb) {
				n++
			}
		}
	}
	return n
}
