package netpeer

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/proctest"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
)

// TestE2EKillQuarter runs the signalling server and 12 `peerlearn peer`
// processes (overlay only); once their overlay is correct the server is
// stopped and a quarter of the peers (3, drawn from a seeded generator)
// are SIGKILLed at once. The 9 survivors must return to the correct
// overlay for their IDs (neighbour sets = overlay.ExpectedTables,
// connections = neighbours) within a bound, with every new connection
// signalled through the overlay itself. Peer keys come from the same
// seed, so a failure replays with the same IDs and victims;
// PEERLEARN_KILL_SEED=N runs another draw.
func TestE2EKillQuarter(t *testing.T) {
	peerBin, sigBin := binaries(t)
	const (
		n, killed, spaces = 12, 3, 3
		bootstrapBound    = 45 * time.Second
		repairBound       = 60 * time.Second
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
	addr := proctest.FreeAddr(t)
	srv := proctest.Start(t, "signalserver", sigBin, []string{"-addr", addr, "-no-web", "-task", tf, "-admission-key", admissionKeyFile(tf)}, nil)
	url := "ws://" + addr + "/signal"
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("signalling server not listening on %s: %v", addr, err)
		}
	}

	t0 := time.Now()
	peers := make([]*proc, n)
	for i := range peers {
		key := make([]byte, 32)
		for j := range key {
			key[j] = byte(rng.Uint32())
		}
		keyFile := filepath.Join(keyDir, fmt.Sprintf("peer%d.key", i))
		if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		peers[i] = startPeer(t, peerBin, fmt.Sprintf("peer%d", i), url, "-task", tf, "-key", keyFile)
		time.Sleep(100 * time.Millisecond)
	}
	sts := waitCorrect(t, peers, spaces, bootstrapBound)
	t.Logf("%d peers bootstrapped into a correct overlay in %v", n, time.Since(t0).Round(time.Millisecond))

	// Without the server every repair connection is signalled through
	// the overlay.
	srv.Stop(t)

	victims := rng.Perm(n)[:killed]
	slices.Sort(victims)
	dead := map[string]bool{}
	var rest []*proc
	for i, p := range peers {
		if slices.Contains(victims, i) {
			dead[p.ID] = true
		} else {
			rest = append(rest, p)
		}
	}
	fresh := newLinks(t, sts, dead, spaces)
	if fresh == 0 {
		t.Fatalf("seed %d: killing peers %v needs no new connection; pick another seed", seed, victims)
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
	sts = waitCorrect(t, rest, spaces, repairBound)
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
	t.Logf("seed %d: server stopped, %d of %d peers SIGKILLed (%v): %d survivors correct again in %v (bound %v); "+
		"%d new neighbour pairs, %d sessions delivered through the overlay since",
		seed, killed, n, names, len(rest), repair.Round(time.Millisecond), repairBound, fresh, routed)
	if routed == 0 {
		t.Errorf("no connection was signalled through the overlay after the kill")
	}
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
	place := PlacementOf(sts)
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
