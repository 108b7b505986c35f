package netpeer

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/proctest"
)

// TestE2EInitGainEstimate runs 10 learning peers as processes on a task
// with init he-gain and gain 0: each estimates the network size by
// push-sum over its real WebRTC overlay links before training, and must
// end within 10% of the true size, apply the gain √estimate, and then
// train (rounds published, models exchanged).
func TestE2EInitGainEstimate(t *testing.T) {
	peerBin, sigBin := binaries(t)
	dir := dataDir(t)
	const n = 10
	spec := `{"aggregator":"fedlay","arch":"mlp","batch":32,"dataset":"mnist","init":{"gain":0,"mode":"he-gain","seed":0},` +
		`"local_epochs":0,"local_steps":5,"max_peers":100,"max_rounds":0,"name":"e2e-init-gain",` +
		`"optimizer":{"lr":0.05,"momentum":0.9,"name":"sgd","weight_decay":0},"partition":{"parts":10,"seed":1,"spec":"iid"},` +
		`"period_ms":1000,"selection":{"k":0,"policy":"overlay"},"target_accuracy":0.8,"tiers":false,"version":1}`
	taskFile := filepath.Join(t.TempDir(), "task.json")
	if err := os.WriteFile(taskFile, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := proctest.FreeAddr(t)
	proctest.Start(t, "signalserver", sigBin, []string{"-addr", addr, "-no-web", "-task", taskFile}, nil)
	proctest.WaitTCP(t, addr)
	url := "ws://" + addr + "/signal"
	t0 := time.Now()
	var peers []*proc
	for i := range n {
		peers = append(peers, startPeer(t, peerBin, fmt.Sprintf("peer%d", i), url, "-learn", "-task", taskFile, "-data", dir,
			"-shard", fmt.Sprintf("%d/%d", i, n)))
	}
	var why string
	for deadline := t0.Add(90 * time.Second); ; {
		time.Sleep(500 * time.Millisecond)
		why = ""
		var ests []string
		for _, p := range peers {
			s, err := fetchStatus(p.Status)
			switch {
			case err != nil:
				why = err.Error()
			case s.InitGain == nil:
				why = p.ID[:8] + ": no init_gain on /status"
			case s.InitGain.State == "estimating":
				why = fmt.Sprintf("%s: estimating (%.2f after %d rounds)", p.ID[:8], s.InitGain.Estimate, s.InitGain.Rounds)
			case s.InitGain.State != "done":
				t.Fatalf("%s: init gain %+v", p.ID[:8], *s.InitGain)
			case math.Abs(s.InitGain.Used/n-1) > 0.1:
				t.Fatalf("%s: estimated %.2f peers, want %d within 10%% (%+v)", p.ID[:8], s.InitGain.Used, n, *s.InitGain)
			case math.Abs(s.InitGain.Gain-math.Sqrt(s.InitGain.Used)) > 1e-9:
				t.Fatalf("%s: gain %v for the estimate %v, want its square root", p.ID[:8], s.InitGain.Gain, s.InitGain.Used)
			case s.Learn == nil || s.Learn.Rounds < 3 || s.Learn.ModelsReceived == 0:
				why = fmt.Sprintf("%s: estimated %.2f, not trained yet (%+v)", p.ID[:8], s.InitGain.Used, s.Learn)
			default:
				ests = append(ests, fmt.Sprintf("%.3f(%d rounds, converged %v)", s.InitGain.Used, s.InitGain.Rounds, s.InitGain.Converged))
			}
			if why != "" {
				break
			}
		}
		if why == "" {
			t.Logf("%d peers: estimates %v, all training, after %v", n, ests, time.Since(t0).Round(time.Millisecond))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", time.Since(t0).Round(time.Second), why)
		}
	}
	for _, p := range peers {
		p.Stop(t)
	}
}
