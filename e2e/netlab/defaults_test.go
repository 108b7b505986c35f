package netlab

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/peer/rtc"
)

// TestNetlabDefaultFlags: the signalling server started with its default
// flags (issue #27), so that it offers only its own STUN and no relay.
// Native peers behind two port-restricted homes (e drops unsolicited UDP,
// g rejects it) connect directly: their host addresses are private and
// unroutable between homes, so the link needs the public mappings STUN
// told them. Peers behind the two symmetric NATs (b, d) connect to no
// one, as ExpectedPath says without TURN, and each says why on /status
// (connect_failure, rtc.Diagnose). With the one STUN server a default
// server offers, a peer sees one mapping per socket and cannot tell its
// own NAT symmetric: the cause is the missing relay.
func TestNetlabDefaultFlags(t *testing.T) {
	parallel(t)
	if testing.Short() {
		t.Skip("network lab (-short)")
	}
	needLab(t)
	peerBin, sigBin := binaries(t)
	data := dataDir(t)
	l := startLab(t, DefaultConfig())
	dir := logDir(t)
	const limit = 120 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), limit+30*time.Second)
	defer cancel()
	homes := []string{"e", "g", "b", "d"} // the cones first: one of them founds the overlay
	spec, _, taskFile, err := writeTask(dir, len(homes), trainedAcc)
	if err != nil {
		t.Fatal(err)
	}
	seeds, ids, err := allNeighbours(len(homes), spec.Spaces, 1)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := StartServers(ctx, l, ServerConfig{SignalBin: sigBin, Dir: dir, TaskFile: taskFile, DefaultFlags: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	peers, err := startNatives(l, MatrixConfig{PeerBin: peerBin, Data: data, Dir: dir, Peers: homes}, taskFile, seeds, ids, len(homes))
	defer func() {
		for _, p := range peers {
			p.stop()
		}
	}()
	if err != nil {
		t.Fatal(err)
	}
	// Poll until the cones' link is up at both ends and both symmetric
	// peers have diagnosed a failure, or the limit; every pair's paths as
	// each poll saw them are kept.
	seen := map[[2]int]map[string]bool{}
	diagnosed := func(p *labPeer) bool { return p.ok && p.st.ConnectFailure != nil }
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-tick.C:
		}
		for _, p := range peers {
			p.poll()
		}
		for i, a := range peers {
			for j, b := range peers {
				if lk, ok := linkTo(a.st, b.id); ok && i != j {
					k := [2]int{min(i, j), max(i, j)}
					if seen[k] == nil {
						seen[k] = map[string]bool{}
					}
					seen[k][fmt.Sprintf("%s (%s/%s, seen by %s)", lk.Path, lk.Local, lk.Remote, a.name)] = true
				}
			}
		}
		_, eg := linkTo(peers[0].st, peers[1].id)
		_, ge := linkTo(peers[1].st, peers[0].id)
		if eg && ge && diagnosed(peers[2]) && diagnosed(peers[3]) {
			break
		}
		if time.Now().After(deadline) {
			for _, p := range peers {
				t.Logf("%s: ok=%v state=%s links=%d\n%s", p.name, p.ok, p.st.State, len(p.st.Links), p.proc.Tail(1500))
			}
			break
		}
	}
	for i, a := range peers {
		for j := i + 1; j < len(peers); j++ {
			b := peers[j]
			want := ExpectedPath(a.home, b.home, false)
			got := seen[[2]int{i, j}]
			t.Logf("%s-%s (%s, %s): want %s, saw %v", a.name, b.name, a.home.NAT, b.home.NAT, want, keys(got))
			for path := range got {
				if want == "none" || !strings.HasPrefix(path, want+" ") {
					t.Errorf("%s-%s: link %s, want %s", a.name, b.name, path, want)
				}
			}
			if want != "none" && len(got) == 0 {
				t.Errorf("%s-%s: never connected, want %s", a.name, b.name, want)
			}
		}
	}
	for _, p := range peers {
		if p.st.ConnectFailure != nil {
			t.Logf("%s: connect_failure %s: %q (causes so far %+v)", p.name, p.st.ConnectFailure.Cause, p.st.ConnectFailure.Why, p.st.RTC.FailureCauses)
		}
	}
	for _, p := range peers[2:] {
		switch {
		case !diagnosed(p):
			t.Errorf("%s (symmetric, no relay offered): no connect_failure on /status (fresh %v)", p.name, p.ok)
		case p.st.ConnectFailure.Cause != rtc.CauseNoRelayOffered || p.st.ConnectFailure.Why == "":
			t.Errorf("%s: connect_failure %+v, want cause %s with a sentence", p.name, *p.st.ConnectFailure, rtc.CauseNoRelayOffered)
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
