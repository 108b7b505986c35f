//go:build !js

package native

import (
	"encoding/hex"
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/plexus"
	"github.com/peerlearn/peerlearn/types/ident"
)

// TestE2EPlexus runs 8 peer processes of a plexus task on MNIST
// (Dirichlet(0.5) shards, max_peers 12: samples of 6, aggregator the
// sample's smallest ID). From the peers' /status it checks that
//   - every peer's view reaches all 8 members, and every round's sample
//     and aggregator a peer reports with a full view are those
//     hash(ID, round) gives over the 8 IDs, recomputed here;
//   - every round is aggregated by its aggregator so recomputed, or by
//     one of the two fallback ranks after a timeout (where that peer is
//     dead, or on a loaded machine slow);
//   - the aggregator of a round not begun yet, SIGKILLed before it
//     begins, is replaced through the timeout path: the round is
//     aggregated by a fallback rank of its sample, and the rounds after
//     it are aggregated too;
//   - the peers learn (mean test accuracy at least learnedFloor).
//
// It ran 12 peers to a mean accuracy of 0.85; how fast Plexus converges,
// and at what cost against D-PSGD and Gossip, is sim/scenario's
// TestPlexusQuick (40 peers, the same core on virtual time), and a
// killed aggregator on virtual time protocol/method's
// TestPlexusCoreAggregatorKilled.
func TestE2EPlexus(t *testing.T) {
	parallel(t)
	peerBin, sigBin := binaries(t)
	dir := dataDir(t)
	const n, maxPeers = 8, 12
	s := min(13, max(2, maxPeers/2)) // PlexusConfig's sample size
	tf := writeSpec(t, fmt.Sprintf(`{"aggregator":"mean","arch":"mlp","batch":32,"dataset":"mnist","init":{"gain":0,"mode":"common","seed":7},`+
		`"local_epochs":0,"local_steps":50,"max_peers":%d,"max_rounds":0,"method":"plexus","name":"e2e-mnist-plexus",`+
		`"optimizer":{"lr":0.05,"momentum":0.9,"name":"sgd","weight_decay":0},"partition":{"parts":%d,"seed":1,"spec":"dirichlet:0.5"},`+
		`"period_ms":2000,"selection":{"k":0,"policy":"overlay"},"spaces":3,"target_accuracy":0.85,"tiers":false,"version":2}`, maxPeers, n))
	_, url := startServer(t, sigBin, "signalserver", tf)
	t0 := time.Now()
	peers := startPeers(t, peerBin, "plexus", url, n, func(i int) []string {
		return []string{"-learn", "-task", tf, "-data", dir, "-shard", fmt.Sprintf("%d/%d", i, n), "-eval-every", "2s", "-eval-samples", "1000"}
	})
	ids := make([]ident.Peer, n)
	index := map[ident.Peer]int{}
	for i, p := range peers {
		b, err := hex.DecodeString(p.ID)
		if err != nil || len(b) != len(ids[i]) {
			t.Fatalf("%s: ID %q", p.Name, p.ID)
		}
		copy(ids[i][:], b)
		index[ids[i]] = i
	}
	// The ranking of round k over every member, recomputed from the IDs
	// (every peer advertises bandwidth 1: ascending ID in the sample).
	view, _ := plexus.NewView()
	for _, id := range ids {
		view.Add(id, 1) //nolint:errcheck // non-zero
	}
	ranking := func(k uint64) []ident.Peer { return view.Ranking(k, s) }

	victim, killedRound := -1, uint64(0)
	aggregatedBy := map[uint64][]int{} // round -> peers that listed it as aggregated
	checked, partial := 0, 0
	var accs []float64
	var mean float64
	var newest uint64 // the newest round a live peer reports
	var full int
	pollUntil(t, 300*time.Second, 300*time.Millisecond, func() (bool, string) {
		accs, mean, full, newest = accs[:0], 0, 0, 0
		for i, p := range peers {
			if i == victim {
				continue
			}
			st, err := fetchStatus(p.Status)
			if err != nil || st.Learn == nil || st.Learn.Method == nil {
				continue
			}
			ms := st.Learn.Method
			if ms.Method != "plexus" {
				t.Fatalf("%s runs %+v", p.Name, ms)
			}
			if err := method.CheckPlexusStatus(*ms, ranking, n); err != nil {
				t.Fatalf("%s: %v", p.Name, err)
			}
			switch {
			case ms.Members == n && ms.Round > 0:
				checked++
				full++
			case ms.Members == n:
				full++
			case ms.Round > 0:
				partial++ // a round reported before the view was full
			}
			for _, k := range ms.Aggregated {
				if !slices.Contains(aggregatedBy[k], i) {
					aggregatedBy[k] = append(aggregatedBy[k], i)
				}
			}
			newest = max(newest, uint64(ms.Round))
			if st.Learn.Evals > 0 {
				accs = append(accs, st.Learn.Accuracy)
				mean += st.Learn.Accuracy / float64(n-1)
			}
		}
		if victim < 0 && newest > 3 && full == n {
			if a, ok := stopAggregatorAhead(t, peers, index, ranking, newest+2); ok {
				victim, killedRound = a, newest+2
			}
		}
		// The replacement's model went on: two more rounds aggregated.
		replaced := killedRound > 0 && len(aggregatedBy[killedRound]) > 0 &&
			len(aggregatedBy[killedRound+1]) > 0 && len(aggregatedBy[killedRound+2]) > 0
		if victim >= 0 && full == n-1 && len(accs) == n-1 && mean >= learnedFloor && replaced {
			return true, ""
		}
		var seen []uint64
		for k := range aggregatedBy {
			seen = append(seen, k)
		}
		slices.Sort(seen)
		return false, fmt.Sprintf("victim %d round %d aggregated by %v, newest round %d, rounds seen aggregated %v, %d full views, accuracies %.3f",
			victim, killedRound, aggregatedBy[killedRound], newest, seen, full, accs)
	})
	t.Logf("plexus, %d peers (1 killed): mean accuracy %.4f (min %.4f) after %v; %d status reports checked against the recomputed samples, %d before a full view",
		n, mean, slices.Min(accs), time.Since(t0).Round(time.Second), checked, partial)
	// Every aggregation by the recomputed aggregator, or by a fallback
	// rank where that one is the killed peer.
	var rounds []uint64
	for k := range aggregatedBy {
		rounds = append(rounds, k)
	}
	slices.Sort(rounds)
	// A live aggregator too slow for a member's AggTimeout on a loaded
	// machine is passed over the same way (the timeout path cannot tell
	// slow from dead; a run beside other helpers: round 4 by rank 2):
	// logged, not a failure.
	fallbacks, slow := 0, 0
	for _, k := range rounds {
		r := ranking(k)
		for _, i := range aggregatedBy[k] {
			switch {
			case ids[i] == r[0]:
			case ids[i] != r[1] && ids[i] != r[2]:
				t.Errorf("round %d aggregated by %s (%v), not one of its first three ranks %v", k, peers[i].Name, ids[i], r[:3])
			case ids[victim] == r[0]:
				fallbacks++
			default:
				slow++
				t.Logf("round %d aggregated by %s (%v), a fallback rank, its rank 0 %v alive", k, peers[i].Name, ids[i], r[0])
			}
		}
	}
	// The killed round is taken over by a fallback rank: members try rank
	// 1 after AggTimeout and rank 2 after a second (MaxAttempts 3), so
	// rank 2 aggregates when a member's delivery to rank 1 timed out too
	// (a CI run: round 4 by rank 2, the mean at 0.8523). Rank 0 is dead.
	r := ranking(killedRound)
	by := aggregatedBy[killedRound]
	if len(by) == 0 {
		t.Errorf("killed round %d aggregated by no one", killedRound)
	}
	for _, i := range by {
		if ids[i] != r[1] && ids[i] != r[2] {
			t.Errorf("killed round %d aggregated by %v, want a fallback rank %v", killedRound, ids[i], r[1:3])
		} else if ids[i] == r[2] {
			t.Logf("killed round %d aggregated by the second fallback %v (rank 1 %v timed out too)", killedRound, ids[i], r[1])
		}
	}
	var unseen []uint64 // aggregated between the victim's last report and its death, or not yet reported
	for k := rounds[0]; k <= rounds[len(rounds)-1]; k++ {
		if len(aggregatedBy[k]) == 0 {
			unseen = append(unseen, k)
		}
	}
	t.Logf("%d rounds aggregated (%d..%d), %d by a fallback aggregator for the killed one, %d for a slow one; not seen in a report: %v",
		len(rounds), rounds[0], rounds[len(rounds)-1], fallbacks, slow, unseen)
	stopAll(t, slices.Delete(slices.Clone(peers), victim, victim+1))
}

// stopAggregatorAhead kills the aggregator of round k, a round not begun
// yet, so that the round can only be aggregated through the fallback
// path. Killing the aggregator of the round in progress races with it:
// a round takes about a second here, and a CI run killed round 4's
// aggregator just after it had averaged the round, so no fallback ever
// ran. So the peer is SIGSTOPped first, the others read once its
// messages in flight had time to land, and it is SIGKILLed only if none
// of them reports round k or later (round k-1's aggregator, which may be
// the stopped peer itself, starts round k); otherwise it is SIGCONTed
// and ok is false, to try again with a later round. victim is the
// killed peer's index.
func stopAggregatorAhead(t *testing.T, peers []*proc, index map[ident.Peer]int, ranking func(uint64) []ident.Peer, k uint64) (victim int, ok bool) {
	t.Helper()
	a := index[ranking(k)[0]]
	p := peers[a]
	if err := p.Cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP %s: %v", p.Name, err)
	}
	time.Sleep(500 * time.Millisecond) // its messages in flight land: no status says when
	began := false
	for i, q := range peers {
		if i == a {
			continue
		}
		st, err := fetchStatus(q.Status)
		if err == nil && st.Learn != nil && st.Learn.Method != nil && uint64(st.Learn.Method.Round) >= k {
			began = true
			break
		}
	}
	if began {
		if err := p.Cmd.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatalf("SIGCONT %s: %v", p.Name, err)
		}
		t.Logf("round %d began before its aggregator %s was stopped; trying a later round", k, p.Name)
		return 0, false
	}
	if err := p.Cmd.Process.Kill(); err != nil {
		t.Fatalf("SIGKILL %s: %v", p.Name, err)
	}
	r := ranking(k)
	t.Logf("round %d, not begun: SIGKILLed its aggregator %s (%v); fallback ranks %v", k, p.Name, r[0], r[1:3])
	return a, true
}
