package netpeer

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/proctest"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
)

// End-to-end tests with separate processes: cmd/signalserver and
// `peerlearn peer`, built from this checkout, talking real WebRTC over
// 127.0.0.1. Skipped with -short.

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds cmd/peerlearn and cmd/signalserver once per test run.
func binaries(t *testing.T) (peerlearn, signalserver string) {
	t.Helper()
	if testing.Short() {
		t.Skip("separate-process test (-short)")
	}
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "netpeer-e2e-")
		if buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "../../cmd/peerlearn", "../../cmd/signalserver")
		out, err := cmd.CombinedOutput()
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
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// proc is a started `peerlearn peer` (or, from proctest.Start, any
// process).
type proc = proctest.Peer

// startPeer starts `peerlearn peer` and waits for its first line.
func startPeer(t *testing.T, bin, name, sigURL string, extra ...string) *proc {
	t.Helper()
	args := append([]string{"peer", "-signal", sigURL, "-loopback", "-status", "127.0.0.1:0", "-every", "0", "-v", "-learn=false"}, extra...)
	return proctest.StartPeer(t, bin, name, args)
}

func fetchStatus(url string) (Status, error) {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return Status{}, err
	}
	defer resp.Body.Close()
	var s Status
	return s, json.NewDecoder(resp.Body).Decode(&s)
}

// waitCorrect polls the peers' status until their neighbour sets are the
// correct ones for exactly these peers and their open connections equal
// their neighbours; it returns the statuses.
func waitCorrect(t *testing.T, peers []*proc, spaces int, timeout time.Duration) []Status {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var why string
	for {
		sts := make([]Status, len(peers))
		var err error
		for i, p := range peers {
			if sts[i], err = fetchStatus(p.Status); err != nil {
				break
			}
		}
		if err == nil {
			why = checkOverlay(sts, spaces)
			if why == "" {
				for _, s := range sts {
					if !slices.Equal(s.Connections, s.Neighbors) {
						why = fmt.Sprintf("%s: %d connections for %d neighbours", s.ID[:8], len(s.Connections), len(s.Neighbors))
						break
					}
				}
			}
			if why == "" {
				return sts
			}
		} else {
			why = err.Error()
		}
		if time.Now().After(deadline) {
			t.Fatalf("overlay not correct after %v: %s", timeout, why)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// TestE2EOverlayBootstrapKillAndLeave runs the signalling server and N
// peers as processes: (a) they bootstrap through the server and form the
// correct overlay (neighbour sets = overlay.ExpectedTables of all IDs,
// connections = neighbours); (b) the server is stopped and a peer is
// SIGKILLed: its ring neighbours connect to each other through the
// overlay's signalling and the overlay is correct again; (c) a peer
// leaves on SIGTERM and the rest is correct again.
func TestE2EOverlayBootstrapKillAndLeave(t *testing.T) {
	peerBin, sigBin := binaries(t)
	const n, spaces = 10, 3
	tf := taskFile(t, "e2e-overlay", spaces)
	addr := proctest.FreeAddr(t)
	srv := proctest.Start(t, "signalserver", sigBin, []string{"-addr", addr, "-no-web", "-task", tf, "-admission-key", admissionKeyFile(tf)}, nil)
	url := "ws://" + addr + "/signal"
	waitFor := func(cond func() bool) {
		for deadline := time.Now().Add(5 * time.Second); !cond() && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor(func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})

	t0 := time.Now()
	var peers []*proc
	for i := range n {
		peers = append(peers, startPeer(t, peerBin, fmt.Sprintf("peer%d", i), url, "-task", tf))
		time.Sleep(100 * time.Millisecond)
	}
	sts := waitCorrect(t, peers, spaces, 40*time.Second)
	t.Logf("(a) %d peers bootstrapped into a correct overlay in %v", n, time.Since(t0).Round(time.Millisecond))

	srv.Stop(t)
	k := victimNeedingNewLinks(t, sts, spaces)
	victim := peers[k]
	victim.Kill()
	t1 := time.Now()
	rest := slices.Delete(slices.Clone(peers), k, k+1)
	before := map[string]uint64{}
	for _, s := range sts {
		before[s.ID] = s.RTC.SignalsDelivered
	}
	sts = waitCorrect(t, rest, spaces, 40*time.Second)
	var routed uint64
	for _, s := range sts {
		routed += s.RTC.SignalsDelivered - before[s.ID]
		if slices.Contains(s.Neighbors, victim.ID) {
			t.Errorf("%s still lists the killed peer", s.ID[:8])
		}
	}
	t.Logf("(b) server stopped, %s killed: correct again in %v; %d sessions delivered through the overlay since",
		victim.ID[:8], time.Since(t1).Round(time.Millisecond), routed)
	if routed == 0 {
		t.Errorf("no connection was signalled through the overlay after the kill")
	}

	leaver := rest[0]
	t2 := time.Now()
	leaver.Stop(t)
	rest = rest[1:]
	waitCorrect(t, rest, spaces, 40*time.Second)
	t.Logf("(c) %s left gracefully: correct again in %v", leaver.ID[:8], time.Since(t2).Round(time.Millisecond))
}

// dataDir returns the directory with the MNIST files ($PEERLEARN_DATA, else
// the checkout's .data), or skips the test.
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

// TestE2ETrain12 runs 12 peers as processes on MNIST, Dirichlet(0.5)
// label skew, one shard each: FedLay's MEP over the real overlay until
// the peers' mean test accuracy reaches 85%.
func TestE2ETrain12(t *testing.T) {
	spec := `{"aggregator":"fedlay","arch":"mlp","batch":32,"dataset":"mnist","init":{"gain":0,"mode":"he","seed":0},` +
		`"local_epochs":0,"local_steps":50,"max_peers":100,"max_rounds":0,"name":"e2e-mnist-12",` +
		`"optimizer":{"lr":0.05,"momentum":0.9,"name":"sgd","weight_decay":0},"partition":{"parts":12,"seed":1,"spec":"dirichlet:0.5"},` +
		`"period_ms":2000,"selection":{"k":0,"policy":"overlay"},"target_accuracy":0.85,"tiers":false,"version":1}`
	trainE2E(t, spec, "fedlay", 12, 0.85, 150*time.Second)
}

// TestE2EGossip10 and TestE2EDPSGD10 run 10 peers as processes on MNIST,
// Dirichlet(0.5) label skew, from a common initial model: Gossip
// Learning (a push to a random overlay neighbour every period) and D-PSGD
// on the overlay graph (synchronous rounds, Metropolis-Hastings mixing)
// until the peers' mean test accuracy reaches 85%.
func TestE2EGossip10(t *testing.T) {
	trainE2E(t, methodSpec("gossip", 10, 1000), "gossip", 10, 0.85, 180*time.Second)
}

func TestE2EDPSGD10(t *testing.T) {
	trainE2E(t, methodSpec("dpsgd", 10, 5000), "dpsgd", 10, 0.85, 180*time.Second)
}

// methodSpec is the e2e MNIST task run by method m on n shards.
func methodSpec(m string, n, periodMS int) string {
	return fmt.Sprintf(`{"aggregator":"mean","arch":"mlp","batch":32,"dataset":"mnist","init":{"gain":0,"mode":"common","seed":7},`+
		`"local_epochs":0,"local_steps":50,"max_peers":100,"max_rounds":0,"method":%q,"name":"e2e-mnist-%s",`+
		`"optimizer":{"lr":0.05,"momentum":0.9,"name":"sgd","weight_decay":0},"partition":{"parts":%d,"seed":1,"spec":"dirichlet:0.5"},`+
		`"period_ms":%d,"selection":{"k":0,"policy":"overlay"},"spaces":3,"target_accuracy":0.85,"tiers":false,"version":2}`, m, m, n, periodMS)
}

// trainE2E runs n `peerlearn peer` processes of the task spec, one shard
// each, until their mean test accuracy reaches target (within bound);
// each must report running method m.
func trainE2E(t *testing.T, spec, m string, n int, target float64, bound time.Duration) {
	peerBin, sigBin := binaries(t)
	dir := dataDir(t)
	taskFile := filepath.Join(t.TempDir(), "task.json")
	if err := os.WriteFile(taskFile, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := proctest.FreeAddr(t)
	proctest.Start(t, "signalserver", sigBin, []string{"-addr", addr, "-no-web", "-task", taskFile, "-admission-key", admissionKeyFile(taskFile)}, nil)
	proctest.WaitTCP(t, addr)
	url := "ws://" + addr + "/signal"
	t0 := time.Now()
	var peers []*proc
	for i := range n {
		peers = append(peers, startPeer(t, peerBin, fmt.Sprintf("peer%d", i), url, "-learn", "-task", taskFile, "-data", dir,
			"-shard", fmt.Sprintf("%d/%d", i, n), "-eval-every", "3s", "-eval-samples", "2000"))
	}
	deadline := t0.Add(bound)
	for {
		time.Sleep(time.Second)
		var accs []float64
		var sum float64
		var rounds, models int
		for _, p := range peers {
			s, err := fetchStatus(p.Status)
			if err != nil || s.Learn == nil || s.Learn.Evals == 0 {
				continue
			}
			if ms := s.Learn.Method; (ms == nil) != (m == "fedlay") || (ms != nil && ms.Method != m) {
				t.Fatalf("%s runs %+v, want method %s", p.Name, ms, m)
			}
			accs = append(accs, s.Learn.Accuracy)
			sum += s.Learn.Accuracy
			rounds += s.Learn.Rounds
			models += int(s.Learn.ModelsReceived)
		}
		if len(accs) == n && sum/float64(n) >= target {
			t.Logf("%s, %d peers: mean accuracy %.4f (min %.4f) after %v, %.1f rounds and %.1f models received per peer",
				m, n, sum/float64(n), slices.Min(accs), time.Since(t0).Round(time.Second), float64(rounds)/float64(n), float64(models)/float64(n))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s after %v: accuracies %.3f", m, time.Since(t0).Round(time.Second), accs)
		}
	}
	for _, p := range peers {
		p.Stop(t)
	}
}

// victimNeedingNewLinks picks a peer whose failure makes two others
// neighbours that are not neighbours now (so not connected: the repair
// needs a new connection, signalled through the overlay).
func victimNeedingNewLinks(t *testing.T, sts []Status, spaces int) int {
	t.Helper()
	ids := make([]ident.Peer, len(sts))
	for i, s := range sts {
		b, _ := hex.DecodeString(s.ID)
		copy(ids[i][:], b)
	}
	place := PlacementOf(sts)
	now := overlay.ExpectedTablesAt(ids, spaces, place)
	for k := range ids {
		rest := slices.Delete(slices.Clone(ids), k, k+1)
		for id, tb := range overlay.ExpectedTablesAt(rest, spaces, place) {
			for _, nb := range tb.Neighbors() {
				if !slices.Contains(now[id].Neighbors(), nb) {
					return k
				}
			}
		}
	}
	t.Fatal("no peer's failure needs a new link")
	return 0
}
