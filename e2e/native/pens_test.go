package native

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
)

// TestE2EPENSRotated runs 6 peer processes on MNIST in two clusters
// (partition iid+rotate:0.5: three peers see their images rotated 180
// degrees and are measured on the rotated test set) with method pens
// for 12 rounds (step 1 is 10), K = 2, candidates drawn from each
// peer's overlay neighbours, and checks PENS's mechanism on real peers:
// every peer runs its rounds to the end, selects (keeps step-2
// neighbours after step 1), fetches its candidates' models and trains
// (models received, its final model evaluated after the last round),
// and learns (mean own-distribution accuracy at least learnedFloor;
// the common initial model is at chance). The precision of the kept
// neighbours is logged, not asserted: on a few processes sharing a
// loaded machine it is a draw (CI: 23/27 against 0.9 with 12 peers). It
// is asserted on the same PENS core on virtual time: protocol/method's
// TestPENSFindsItsCluster and TestPENSSettleKeepsFormingViewOutOfHistory
// (a forming view kept out of step 1, issue #18), methodsim's
// TestSelectionRunPENSFindsItsCluster, and sim/scenario's
// TestPENSRotatedQuick (precision >= 0.9 over 25 clients, PENS at least
// 2 points above Random: the comparison this test made against a second
// swarm running Random).
func TestE2EPENSRotated(t *testing.T) {
	parallel(t)
	dir := dataDir(t)
	const n, rounds = 6, 12
	train, _, err := data.Load(os.DirFS(dir), "mnist")
	if err != nil {
		t.Fatal(err)
	}
	shards, err := data.Partition(train, "iid+rotate:0.5", n, data.NewRand(1))
	if err != nil {
		t.Fatal(err)
	}
	pens := runSelection(t, dir, "pens", n, rounds)
	right, all := 0, 0
	for _, s := range pens.sts {
		me := pens.shard[s.ID]
		ms := s.Learn.Method
		var line []string
		for _, nb := range ms.Neighbours {
			line = append(line, fmt.Sprintf("%d:%v", pens.shard[nb.Hex()], shards[pens.shard[nb.Hex()]].Rotated))
			all++
			if shards[pens.shard[nb.Hex()]].Rotated == shards[me].Rotated {
				right++
			}
		}
		t.Logf("peer %d rotated=%v acc %.3f neighbours %v (of %d peers), %d models received, %d timeouts",
			me, shards[me].Rotated, s.Learn.Accuracy, line, ms.Peers, ms.ModelsReceived, ms.Timeouts)
		if len(ms.Neighbours) == 0 {
			t.Errorf("peer %d kept no step-2 neighbour after %d rounds: PENS selected nothing", me, rounds)
		}
		if ms.ModelsReceived == 0 {
			t.Errorf("peer %d received no model in %d rounds", me, rounds)
		}
	}
	t.Logf("pens: precision %d/%d (logged, not asserted), mean own-distribution accuracy %.4f after %d rounds in %v",
		right, all, pens.acc, rounds, pens.took.Round(time.Second))
	if pens.acc < learnedFloor {
		t.Errorf("mean own-distribution accuracy %.3f after %d rounds, want %.2f or more: the peers do not learn", pens.acc, rounds, learnedFloor)
	}
}

type selectionOutcome struct {
	sts   []Status
	shard map[string]int // peer ID (hex) -> shard
	acc   float64
	took  time.Duration
}

// runSelection runs n peers of a pens-method task with the given policy
// (K = 2) for rounds rounds and returns their statuses once every peer
// is done and evaluated its final model.
func runSelection(t *testing.T, dir, policy string, n, rounds int) selectionOutcome {
	t.Helper()
	peerBin, sigBin := binaries(t)
	tf := writeSpec(t, fmt.Sprintf(`{"aggregator":"mean","arch":"mlp","batch":32,"dataset":"mnist","init":{"gain":0,"mode":"common","seed":7},`+
		`"local_epochs":0,"local_steps":50,"max_peers":100,"max_rounds":%d,"method":"pens","name":"e2e-pens-%s",`+
		`"optimizer":{"lr":0.05,"momentum":0.9,"name":"sgd","weight_decay":0},"partition":{"parts":%d,"seed":1,"spec":"iid+rotate:0.5"},`+
		`"period_ms":3000,"selection":{"k":2,"policy":%q},"spaces":5,"target_accuracy":0.85,"tiers":false,"version":2}`, rounds, policy, n, policy))
	srv, url := startServer(t, sigBin, "signalserver", tf)
	t0 := time.Now()
	peers := startPeers(t, peerBin, policy, url, n, func(i int) []string {
		return []string{"-learn", "-task", tf, "-data", dir, "-shard", fmt.Sprintf("%d/%d", i, n), "-eval-every", "2s", "-eval-samples", "1000"}
	})
	out := selectionOutcome{shard: map[string]int{}}
	for i, p := range peers {
		out.shard[p.ID] = i
	}
	pollUntil(t, 240*time.Second, time.Second, func() (bool, string) {
		out.sts, out.acc = out.sts[:0], 0
		for _, p := range peers {
			s, err := fetchStatus(p.Status)
			if err != nil || s.Learn == nil || s.Learn.Method == nil {
				return false, fmt.Sprintf("%s: %v, no method status", p.Name, err)
			}
			if m := s.Learn.Method; m.Method != "pens" {
				t.Fatalf("%s runs %+v", p.Name, m)
			}
			// Done, and its final model evaluated (PENS now trains once
			// more than max_rounds, issue #23: either count passes).
			if s.Learn.Method.Role != "done" || !s.Learn.EvalFinal || s.Learn.EvalRound < rounds {
				return false, fmt.Sprintf("%s: %s at round %d, evaluated at round %d", p.Name, s.Learn.Method.Role, s.Learn.Method.Round, s.Learn.EvalRound)
			}
			out.sts = append(out.sts, s)
			out.acc += s.Learn.Accuracy / float64(n)
		}
		return true, ""
	})
	out.took = time.Since(t0)
	stopAll(t, peers)
	srv.Stop(t)
	return out
}
