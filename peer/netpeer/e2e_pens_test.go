package netpeer

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/internal/proctest"
)

// TestE2EPENSRotated12 runs 12 peer processes on MNIST in two clusters
// (partition iid+rotate:0.5: six peers see their images rotated 180
// degrees and are measured on the rotated test set) with method pens for
// 16 rounds, candidates drawn from each peer's overlay neighbours: the
// neighbours PENS keeps after step 1 are of the peer's own cluster
// (precision >= 0.9), and the mean own-distribution accuracy beats the
// Random policy's on the same shards and rounds. Each peer's round 1
// waits until its overlay view has held still for two periods
// (PENSConfig.Settle): round 1 used to sample the 2-4 peers of a forming
// overlay and put wrong-cluster peers in step 1's history (issue #18:
// precision 22/26 in a CI run). A neighbour of the other cluster is
// still kept where a peer's view holds only one of its own cluster (with
// K = 2 a step-1 sample's second pick is then always of the other).
func TestE2EPENSRotated12(t *testing.T) {
	dir := dataDir(t)
	const n, rounds = 12, 16
	train, _, err := data.Load(os.DirFS(dir), "mnist")
	if err != nil {
		t.Fatal(err)
	}
	shards, err := data.Partition(train, "iid+rotate:0.5", n, data.NewRand(1))
	if err != nil {
		t.Fatal(err)
	}
	pens := runSelection(t, dir, "pens", n, rounds)
	random := runSelection(t, dir, "random", n, rounds)
	right, all := 0, 0
	for _, s := range pens.sts {
		me := pens.shard[s.ID]
		var line []string
		for _, nb := range s.Learn.Method.Neighbours {
			line = append(line, fmt.Sprintf("%d:%v", pens.shard[nb.Hex()], shards[pens.shard[nb.Hex()]].Rotated))
		}
		t.Logf("peer %d rotated=%v acc %.3f neighbours %v (of %d peers)", me, shards[me].Rotated, s.Learn.Accuracy, line, s.Learn.Method.Peers)
		for _, nb := range s.Learn.Method.Neighbours {
			all++
			if shards[pens.shard[nb.Hex()]].Rotated == shards[pens.shard[s.ID]].Rotated {
				right++
			}
		}
	}
	precision := float64(right) / float64(max(all, 1))
	t.Logf("pens: precision %d/%d = %.3f, mean own-distribution accuracy %.4f; random: %.4f (%d rounds, %v and %v)",
		right, all, precision, pens.acc, random.acc, rounds, pens.took.Round(time.Second), random.took.Round(time.Second))
	if precision < 0.9 {
		t.Errorf("precision %.3f, want >= 0.9", precision)
	}
	if pens.acc <= random.acc {
		t.Errorf("pens accuracy %.4f not above random's %.4f", pens.acc, random.acc)
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
	spec := fmt.Sprintf(`{"aggregator":"mean","arch":"mlp","batch":32,"dataset":"mnist","init":{"gain":0,"mode":"common","seed":7},`+
		`"local_epochs":0,"local_steps":50,"max_peers":100,"max_rounds":%d,"method":"pens","name":"e2e-pens-%s",`+
		`"optimizer":{"lr":0.05,"momentum":0.9,"name":"sgd","weight_decay":0},"partition":{"parts":%d,"seed":1,"spec":"iid+rotate:0.5"},`+
		`"period_ms":3000,"selection":{"k":2,"policy":%q},"spaces":5,"target_accuracy":0.85,"tiers":false,"version":2}`, rounds, policy, n, policy)
	tf := filepath.Join(t.TempDir(), "task.json")
	if err := os.WriteFile(tf, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := proctest.FreeAddr(t)
	srv := proctest.Start(t, "signalserver", sigBin, []string{"-addr", addr, "-no-web", "-task", tf}, nil)
	proctest.WaitTCP(t, addr)
	url := "ws://" + addr + "/signal"
	t0 := time.Now()
	var peers []*proc
	out := selectionOutcome{shard: map[string]int{}}
	for i := range n {
		p := startPeer(t, peerBin, fmt.Sprintf("%s%d", policy, i), url, "-learn", "-task", tf, "-data", dir,
			"-shard", fmt.Sprintf("%d/%d", i, n), "-eval-every", "2s", "-eval-samples", "1000")
		peers = append(peers, p)
		out.shard[p.ID] = i
	}
	deadline := t0.Add(240 * time.Second)
	for {
		time.Sleep(time.Second)
		out.sts, out.acc = out.sts[:0], 0
		for _, p := range peers {
			s, err := fetchStatus(p.Status)
			if err != nil || s.Learn == nil || s.Learn.Method == nil {
				continue
			}
			if m := s.Learn.Method; m.Method != "pens" {
				t.Fatalf("%s runs %+v", p.Name, m)
			}
			if s.Learn.Method.Role == "done" && s.Learn.EvalRound > rounds {
				out.sts = append(out.sts, s)
				out.acc += s.Learn.Accuracy / float64(n)
			}
		}
		if len(out.sts) == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: after %v only %d of %d peers done and evaluated", policy, time.Since(t0).Round(time.Second), len(out.sts), n)
		}
	}
	out.took = time.Since(t0)
	for _, p := range peers {
		p.Stop(t)
	}
	srv.Stop(t)
	return out
}
