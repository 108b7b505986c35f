package netlab

import (
	"context"
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
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

func binaries(t *testing.T) (peerlearn, signalserver string) {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "netlab-")
		if buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "../../cmd/peerlearn", "../../cmd/signalserver").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "peerlearn"), filepath.Join(binDir, "signalserver")
}

func TestMain(m *testing.M) {
	defaultParallel()
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func dataDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("PEERLEARN_DATA")
	if dir == "" {
		dir, _ = filepath.Abs("../../.data")
	}
	if _, err := os.Stat(filepath.Join(dir, "mnist")); err != nil {
		t.Skipf("no MNIST under %s (make data)", dir)
	}
	return dir
}

// trainedAcc is the target the lab's runs train to: far above MNIST's
// chance (0.1), so every peer has trained on models that crossed the
// NATs and relays, and reached in a few rounds on a loaded machine. The
// accuracy FedLay reaches (80%) is sim/scenario's TestFedLayMNISTQuick's
// claim, deterministic; as a target here it only made the runs longer.
const trainedAcc = 0.5

// matrixPeers: two peers behind the full cone (a host-to-host pair),
// one behind each other NAT.
var matrixPeers = []string{"a", "a", "b", "c", "d"}

// conePeers: one peer behind each port-restricted home (two dropping
// unsolicited UDP, two rejecting it), the full cone and a symmetric NAT:
// port-restricted pairs of every kind across two routers, and each kind
// against a full cone and a symmetric NAT (ExpectedPath).
var conePeers = []string{"e", "f", "g", "h", "a", "b"}

func runMatrix(t *testing.T, peers []string, shape *Shape, limit time.Duration) *MatrixResult {
	t.Helper()
	if testing.Short() {
		t.Skip("network lab (-short)")
	}
	needLab(t)
	peerBin, sigBin := binaries(t)
	data := dataDir(t)
	cfg := DefaultConfig()
	cfg.Shaped, cfg.Seed = shape != nil, 1
	l := startLab(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), limit+30*time.Second)
	defer cancel()
	res, err := RunMatrix(ctx, l, MatrixConfig{
		PeerBin: peerBin, SignalBin: sigBin, Data: data, Dir: logDir(t),
		Peers: peers, Shape: shape, Target: trainedAcc, Timeout: limit, Seed: 1, Logf: t.Logf,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("after %v: accuracy mean %.3f %v, overlay correct %v\n%s", res.Elapsed.Round(time.Second), res.AccMean, res.Acc, res.OverlayOK, res.Table())
	return res
}

// checkMatrix asks that every pair connected over the path its NATs
// allow, and that training reached the target with a correct overlay.
func checkMatrix(t *testing.T, res *MatrixResult) {
	t.Helper()
	if res.Failed != 0 {
		t.Errorf("%d of %d pairs never connected", res.Failed, len(res.Pairs))
	}
	for _, p := range res.Pairs {
		if p.Path != "" && p.Path != p.Want {
			t.Errorf("%s-%s: %s (%s/%s), want %s", p.A, p.B, p.Path, p.Local, p.Remote, p.Want)
		}
	}
	if !res.OverlayOK {
		t.Errorf("overlay not the expected one:\n%s", strings.Join(res.OverlayDiff, "\n"))
	}
	if !res.Reached {
		t.Errorf("not every peer reached the target: %v", res.Acc)
	}
}

// TestNetlabMatrix: native peers behind a full-cone, two symmetric and a
// UDP-blocked NAT. Every pair connects, directly wherever one side is
// the full cone, through TURN otherwise, and they train (trainedAcc).
func TestNetlabMatrix(t *testing.T) {
	parallel(t)
	checkMatrix(t, runMatrix(t, matrixPeers, nil, 120*time.Second))
}

// TestNetlabMatrixCones: native peers behind four port-restricted cones
// (plain Linux masquerade; two drop unsolicited UDP, two reject it), a
// full cone and a symmetric NAT. Every pair connects over the path
// ExpectedPath derives from the two NATs: port-restricted pairs and
// pairs with the full cone directly (hole punching with the server's
// STUN), port-restricted ones with the symmetric NAT through TURN.
func TestNetlabMatrixCones(t *testing.T) {
	parallel(t)
	checkMatrix(t, runMatrix(t, conePeers, nil, 150*time.Second))
}

// TestNetlabMatrixNetem: the same with 50±25 ms and 1% loss each way on
// every home's link: between two homes a frame crosses two links, so
// round trips of 100-300 ms (200 ms on average) and ~2% loss each way,
// the home links. Every pair connects over the path its NATs
// allow, the overlay is the expected one and every peer trains.
//
// It failed (2, 5 and 4 of 10 pairs after 180 s in 3 runs) until routed signalling
// and transfer results left the ordered channel, where they waited
// behind model chunks, and SCTP stopped collapsing its congestion window
// on random loss (peer/rtc settings_sctp.go; docs/RESULTS.md, netlab).
func TestNetlabMatrixNetem(t *testing.T) {
	parallel(t)
	checkMatrix(t, runMatrix(t, matrixPeers, &Shape{Delay: 50 * time.Millisecond, Jitter: 25 * time.Millisecond, Loss: 0.01}, 180*time.Second))
}
