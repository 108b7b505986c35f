package netlab

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestNetlabCoturn: with Debian's coturn as the TURN server, run with
// the deployment's configuration (server.CoturnConfig), a peer in the
// UDP-blocked home connects to the others through it and every peer
// trains (trainedAcc). Without the configuration's denied private ranges
// coturn dropped the allocation's traffic after ICE tried a private
// host candidate through it, and home c never connected.
func TestNetlabCoturn(t *testing.T) {
	parallel(t)
	if testing.Short() {
		t.Skip("network lab (-short)")
	}
	needLab(t)
	needCoturn(t)
	peerBin, sigBin := binaries(t)
	data := dataDir(t)
	l := startLab(t, DefaultConfig())
	const limit = 3 * time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), limit+30*time.Second)
	defer cancel()
	res, err := RunMatrix(ctx, l, MatrixConfig{
		PeerBin: peerBin, SignalBin: sigBin, Data: data, Dir: logDir(t), Coturn: true,
		Peers: []string{"a", "b", "c"}, Target: trainedAcc, Timeout: limit, Seed: 1, Logf: t.Logf,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("after %v: accuracy mean %.3f %v, overlay correct %v\n%s", res.Elapsed.Round(time.Second), res.AccMean, res.Acc, res.OverlayOK, res.Table())
	checkMatrix(t, res)
	relayed := 0
	for _, p := range res.Pairs {
		if p.Path == "relay" {
			relayed++
		}
	}
	if relayed != 2 {
		t.Errorf("%d pairs relayed through coturn, want 2 (a-c, b-c)", relayed)
	}
}

// needCoturn skips without Debian's coturn, except under CI=true
// (scripts/deps.sh test installs it).
func needCoturn(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("turnserver"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true: turnserver (Debian coturn) is missing: scripts/deps.sh test installs it")
		}
		t.Skip("turnserver (Debian coturn) not installed: scripts/deps.sh test")
	}
}
