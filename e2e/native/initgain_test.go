package native

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// TestE2EInitGainEstimate runs 6 learning peers as processes on a task
// with init he-gain and gain 0: each estimates the network size by
// push-sum over its real WebRTC overlay links before training, and must
// end within 10% of the true size, apply the gain √estimate, and then
// train (rounds published, models exchanged). (10 peers before: the
// estimate on overlays of 8 to 200 nodes is protocol/pushsum's
// TestEstimateOnRings.)
func TestE2EInitGainEstimate(t *testing.T) {
	parallel(t)
	peerBin, sigBin := binaries(t)
	dir := dataDir(t)
	const n = 6
	tf := writeSpec(t, `{"aggregator":"fedlay","arch":"mlp","batch":32,"dataset":"mnist","init":{"gain":0,"mode":"he-gain","seed":0},`+
		`"local_epochs":0,"local_steps":5,"max_peers":100,"max_rounds":0,"name":"e2e-init-gain",`+
		`"optimizer":{"lr":0.05,"momentum":0.9,"name":"sgd","weight_decay":0},"partition":{"parts":6,"seed":1,"spec":"iid"},`+
		`"period_ms":1000,"selection":{"k":0,"policy":"overlay"},"target_accuracy":0.8,"tiers":false,"version":1}`)
	_, url := startServer(t, sigBin, "signalserver", tf)
	peers := startPeers(t, peerBin, "peer", url, n, func(i int) []string {
		return []string{"-learn", "-task", tf, "-data", dir, "-shard", fmt.Sprintf("%d/%d", i, n)}
	})
	var ests []string
	took := pollUntil(t, 120*time.Second, 500*time.Millisecond, func() (bool, string) {
		ests = ests[:0]
		for _, p := range peers {
			s, err := fetchStatus(p.Status)
			switch {
			case err != nil:
				return false, err.Error()
			case s.InitGain == nil:
				return false, p.ID[:8] + ": no init_gain on /status"
			case s.InitGain.State == "estimating":
				return false, fmt.Sprintf("%s: estimating (%.2f after %d rounds)", p.ID[:8], s.InitGain.Estimate, s.InitGain.Rounds)
			case s.InitGain.State != "done":
				t.Fatalf("%s: init gain %+v", p.ID[:8], *s.InitGain)
			case math.Abs(s.InitGain.Used/n-1) > 0.1:
				t.Fatalf("%s: estimated %.2f peers, want %d within 10%% (%+v)", p.ID[:8], s.InitGain.Used, n, *s.InitGain)
			case math.Abs(s.InitGain.Gain-math.Sqrt(s.InitGain.Used)) > 1e-9:
				t.Fatalf("%s: gain %v for the estimate %v, want its square root", p.ID[:8], s.InitGain.Gain, s.InitGain.Used)
			case s.Learn == nil || s.Learn.Rounds < 3 || s.Learn.ModelsReceived == 0:
				return false, fmt.Sprintf("%s: estimated %.2f, not trained yet (%+v)", p.ID[:8], s.InitGain.Used, s.Learn)
			}
			ests = append(ests, fmt.Sprintf("%.3f(%d rounds, converged %v)", s.InitGain.Used, s.InitGain.Rounds, s.InitGain.Converged))
		}
		return true, ""
	})
	t.Logf("%d peers: estimates %v, all training, after %v", n, ests, took.Round(time.Millisecond))
	stopAll(t, peers)
}
