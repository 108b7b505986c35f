//go:build !js

package native

import (
	"fmt"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/proctest"
)

// TestE2ETwoSignalServers: two signalling servers for one task, sharing
// no state. Half the peers bootstrap through server A (they list A and B;
// B is not up yet, so each tries it, is refused and takes A), the other
// half through server B (they list only B), so the halves start as two
// separate overlays. The A peers move to B now and then (the bridge,
// servers.go) and join through B's contacts: the overlays merge into one
// correct overlay of all peers, every neighbour connected (waitLinked:
// a move leaves connections to contacts, closed after rtc's grace,
// which TestE2EKillQuarter checks). Then server A is killed and a
// newcomer that lists A first still joins, through B.
func TestE2ETwoSignalServers(t *testing.T) {
	parallel(t)
	peerBin, sigBin := binaries(t)
	const half, spaces = 4, 2
	const bridgeEvery = "20s" // first move 10-30 s after joining: after group B formed
	tf := taskFile(t, "e2e-two-servers", spaces)
	// B's address is taken now, its server started later.
	addrB := proctest.FreeAddr(t)
	urlB := "ws://" + addrB + "/signal"
	srvA, urlA := startServer(t, sigBin, "signalserverA", tf)

	groupA := startPeers(t, peerBin, "a", urlA+","+urlB, half, func(int) []string { return []string{"-task", tf, "-bridge-every", bridgeEvery} })
	waitCorrect(t, groupA, spaces, 60*time.Second)

	startServerAt(t, sigBin, "signalserverB", tf, addrB)
	t0 := time.Now()
	groupB := startPeers(t, peerBin, "b", urlB, half, func(int) []string { return []string{"-task", tf, "-bridge-every", bridgeEvery} })
	// Every B peer is a member through B. (Their overlay alone is not
	// checked: an A peer whose first move comes early, on a loaded
	// machine, may already have joined it.)
	pollUntil(t, 60*time.Second, 200*time.Millisecond, func() (bool, string) {
		members := 0
		for _, p := range groupB {
			if s, err := fetchStatus(p.Status); err == nil && s.State == "member" {
				if s.Server != urlB {
					t.Fatalf("%s registered with %q, want B", s.ID[:8], s.Server)
				}
				members++
			}
		}
		return members == half, fmt.Sprintf("%d of %d B peers members", members, half)
	})
	t.Logf("%d peers through A, %d through B (members in %v)", half, half, time.Since(t0).Round(time.Millisecond))

	all := append(append([]*proc(nil), groupA...), groupB...)
	sts := waitLinked(t, all, spaces, 90*time.Second)
	bridges, onB := 0, 0
	for _, s := range sts {
		bridges += s.Bridges
		if s.Server == urlB {
			onB++
		}
	}
	t.Logf("one correct overlay of %d peers %v after group B started; %d moves between servers, %d peers now on B",
		len(all), time.Since(t0).Round(time.Millisecond), bridges, onB)
	if bridges == 0 {
		t.Errorf("the overlays merged without any peer moving between servers")
	}

	srvA.Kill()
	t1 := time.Now()
	newcomer := startPeer(t, peerBin, "newcomer", urlA+","+urlB, []string{"-task", tf, "-bridge-every", bridgeEvery})
	all = append(all, newcomer)
	sts = waitLinked(t, all, spaces, 60*time.Second)
	if s := sts[len(sts)-1]; s.Server != urlB {
		t.Errorf("the newcomer registered with %q, want B", s.Server)
	}
	t.Logf("server A killed: a newcomer listing A first joined through B; %d peers correct in %v", len(all), time.Since(t1).Round(time.Millisecond))
}
