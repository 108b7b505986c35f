//go:build !js

package netpeer

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/proctest"
)

// TestE2ESaturatedCPU runs 6 peer processes while busy loops (one shell
// `while :; do :; done` per core) saturate every core, for 60 s
// (PEERLEARN_LONG=1: 5 minutes): no neighbour may be dropped (the
// adaptive failure detector must tell a starved peer from a dead one),
// and the overlay stays correct at every check. Then, still under load, a
// peer is SIGKILLed: its neighbours must repair (neighbour sets correct)
// within 10 s.
func TestE2ESaturatedCPU(t *testing.T) {
	peerBin, sigBin := binaries(t)
	const n, spaces = 6, 2
	hold := 60 * time.Second
	if os.Getenv("PEERLEARN_LONG") == "1" {
		hold = 5 * time.Minute
	}
	tf := taskFile(t, "e2e-load", spaces)
	addr := proctest.FreeAddr(t)
	proctest.Start(t, "signalserver", sigBin, []string{"-addr", addr, "-no-web", "-task", tf, "-admission-key", admissionKeyFile(tf)}, nil)
	proctest.WaitTCP(t, addr)
	url := "ws://" + addr + "/signal"
	var peers []*proc
	for i := range n {
		peers = append(peers, startPeer(t, peerBin, fmt.Sprintf("peer%d", i), url, "-task", tf))
		time.Sleep(100 * time.Millisecond)
	}
	sts := waitCorrect(t, peers, spaces, 40*time.Second)
	before := map[string]uint64{}
	for _, s := range sts {
		before[s.ID] = s.NeighborsRemoved
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range runtime.NumCPU() {
		hog := exec.CommandContext(ctx, "sh", "-c", "while :; do :; done")
		if err := hog.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cancel(); hog.Wait() })
	}
	t0 := time.Now()
	checks, slowest := 0, time.Duration(0)
	for time.Since(t0) < hold {
		time.Sleep(time.Second)
		start := time.Now()
		for _, p := range peers {
			s, err := fetchStatus(p.Status)
			if err != nil {
				t.Fatalf("after %v under load: %s: %v", time.Since(t0).Round(time.Second), p.ID[:8], err)
			}
			if d := s.NeighborsRemoved - before[s.ID]; d != 0 {
				t.Fatalf("after %v under load: %s dropped %d neighbours", time.Since(t0).Round(time.Second), s.ID[:8], d)
			}
			sts[slices.Index(peers, p)] = s
		}
		slowest = max(slowest, time.Since(start))
		if why := checkOverlay(sts, spaces); why != "" {
			t.Fatalf("after %v under load: %s", time.Since(t0).Round(time.Second), why)
		}
		checks++
	}
	t.Logf("%d busy loops for %v: no neighbour dropped, overlay correct at %d of %d checks (slowest status round %v)",
		runtime.NumCPU(), hold, checks, checks, slowest.Round(time.Millisecond))

	k := victimNeedingNewLinks(t, sts, spaces)
	peers[k].Kill()
	t1 := time.Now()
	waitNeighbours(t, slices.Delete(slices.Clone(peers), k, k+1), spaces, 10*time.Second)
	t.Logf("still under load, %s killed: neighbour sets correct again in %v", peers[k].ID[:8], time.Since(t1).Round(time.Millisecond))
}
