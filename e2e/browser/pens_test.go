package browser

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
)

// pensSpec is peer/netpeer's TestE2EPENSRotated12 task for n peers:
// MNIST in two clusters (partition iid+rotate:0.5: half the shards'
// images rotated 180 degrees), method pens, K = 2, rounds rounds, but
// rounds of 3 s rather than 1.5 s. PENS's step 1 (its first 10 rounds)
// counts each peer's picks among the neighbours it has; in rounds of
// 1.5 s it ran almost wholly while the overlay formed (12.6 s for 7
// natives on a loaded machine), and a rotated native that saw fewer than
// two rotated neighbours then kept an upright one (precision 16/18).
func pensSpec(n, rounds int) string {
	return fmt.Sprintf(`{"aggregator":"mean","arch":"mlp","batch":32,"dataset":"mnist","init":{"gain":0,"mode":"common","seed":7},`+
		`"local_epochs":0,"local_steps":50,"max_peers":100,"max_rounds":%d,"method":"pens","name":"browser-pens",`+
		`"optimizer":{"lr":0.05,"momentum":0.9,"name":"sgd","weight_decay":0},"partition":{"parts":%d,"seed":1,"spec":"iid+rotate:0.5"},`+
		`"period_ms":3000,"selection":{"k":2,"policy":"pens"},"spaces":%d,"target_accuracy":0.85,"tiers":false,"version":2}`, rounds, n, pensRings)
}

// pensRings is pensSpec's overlay ring count L. PENS's step 1 can keep
// only its own cluster when its view holds at least K = 2 of it: the
// tab's cluster is 3 natives, and a peer of 8 misses a given other in
// all L rings with probability (5/7)^L. With L = 8 (2L = 16 ring
// adjacencies) the tab saw fewer than 2 of its 3 in 158 of 20,000 random
// placements (0.8%), and once in CI it did (5 peers, one rotated; it
// kept an upright native). With L = 16 (overlay.MaxSpaces): 0 and 1 of
// 20,000 in two draws (TestPENSRingsHoldTheCluster). (L = 5, the
// netpeer test's for 12 peers: 7%.)
const pensRings = overlay.MaxSpaces

// TestPENSRingsHoldTheCluster checks pensRings' premise on the overlay's
// own placement (overlay.ExpectedTables, coordinates from the IDs'
// hashes): over pensRingsTrials placements of 8 random IDs (seeded), a
// peer of a cluster of 4 has fewer than K = 2 of the 3 others among its
// ring neighbours in at most 0.1% of them. Measured: 16 rings 1 of
// 20,000 here; 8 rings 141 of 20,000 (0.7%, near the rate at which
// TestBrowserPENS failed for it).
func TestPENSRingsHoldTheCluster(t *testing.T) {
	const n, k = 8, 2
	rng := rand.New(rand.NewPCG(1, 8))
	short := 0
	for range pensRingsTrials {
		ids := make([]ident.Peer, n)
		for i := range ids {
			for j := range ids[i] {
				ids[i][j] = byte(rng.Uint32())
			}
		}
		nb := overlay.ExpectedTables(ids, pensRings)[ids[0]].Neighbors()
		in := 0
		for _, c := range ids[1:4] { // peer 0's cluster: peers 0-3
			if slices.Contains(nb, c) {
				in++
			}
		}
		if in < k {
			short++
		}
	}
	t.Logf("with %d rings, peer 0 had fewer than %d of its cluster's 3 among its neighbours in %d of %d placements", pensRings, k, short, pensRingsTrials)
	if short > pensRingsTrials/1000 {
		t.Errorf("that is over 0.1%%: TestBrowserPENS's tab would keep a peer of the other cluster in as many runs")
	}
}

// pensRingsTrials: placements TestPENSRingsHoldTheCluster draws.
const pensRingsTrials = 20000

// TestBrowserPENS: a headless Chromium tab and seven native peers run a
// PENS task in two rotated-image clusters; the tab holds a rotated
// shard. From the tab's own page status: it cut the shard a native
// peer would (label counts, rotated), it ran pens, and once every peer
// has finished its rounds and evaluated its final model on its own
// distribution's test set, the neighbours the tab's PENS kept are all of
// its own cluster and the tab has trained (its accuracy on the rotated
// test set far above chance).
func TestBrowserPENS(t *testing.T) {
	parallelHeavy(t)
	bin := chromium(t)
	dir := dataDir(t)
	peerBin, sigBin, wasmDir := build(t, dir)
	// 12 rounds: PENS's 10 of step 1, then step 2 on the neighbours kept.
	const n, rounds = 8, 12
	train, _, err := data.Load(os.DirFS(dir), "mnist")
	if err != nil {
		t.Fatal(err)
	}
	shards, err := data.Partition(train, "iid+rotate:0.5", n, data.NewRand(1))
	if err != nil {
		t.Fatal(err)
	}
	k := slices.IndexFunc(shards, func(s data.Shard) bool { return s.Rotated })
	if k < 0 {
		t.Fatal("no rotated shard")
	}
	local, err := train.Client(shards[k])
	if err != nil {
		t.Fatal(err)
	}
	wantLabels := make([]int, local.Classes)
	for _, y := range local.Y {
		wantLabels[y]++
	}
	srv := startTaskServer(t, sigBin, wasmDir, pensSpec(n, rounds))

	// The natives first, then the tab once their overlay is formed
	// (every native has its correct neighbours, all linked). PENS's step 1 counts a peer's picks from its
	// first round: a peer whose first rounds see only a couple of
	// neighbours (the overlay still forming) counts whoever is there,
	// and may keep one of the other cluster (measured with the tab
	// first: its kept neighbours included an upright native). The tab
	// joining a formed overlay samples its full neighbour set from its
	// first round.
	t0 := time.Now()
	shard := map[ident.Peer]int{}
	var natives []*proc
	for i := range n {
		if i == k {
			continue
		}
		p := startPeer(t, peerBin, fmt.Sprintf("native%d", i), srv.sigURL, "-task", srv.taskFile, "-data", dir,
			"-shard", fmt.Sprintf("%d/%d", i, n), "-eval-every", "2s", "-eval-samples", "1000")
		natives = append(natives, p)
		id, err := ident.ParsePeer(p.ID)
		if err != nil {
			t.Fatalf("%s: ID %q", p.Name, p.ID)
		}
		shard[id] = i
	}
	waitUntil(t, "the natives' overlay", 60*time.Second, 300*time.Millisecond, func() string {
		var vs []peerView
		for _, p := range natives {
			v, err := nativeView(p)
			if err != nil {
				return err.Error()
			}
			vs = append(vs, v)
		}
		return checkOverlay(vs, pensRings)
	})
	t.Logf("the %d natives' overlay correct after %v", n-1, time.Since(t0).Round(time.Millisecond))
	tb := joinTab(t, bin, "tab", srv, fmt.Sprintf("shard=%d/%d&evalEvery=2000&evalSamples=1000", k, n), nil)
	tv, err := tabMethodView(tb)
	if err != nil {
		t.Fatal(err)
	}
	shard[tv.ID] = k
	if !tv.Rotated || !slices.Equal(tv.Labels, wantLabels) || !strings.Contains(tv.Shard, "rotated") {
		t.Fatalf("tab's shard %q rotated=%v labels %v; shard %d of the partition is rotated with labels %v", tv.Shard, tv.Rotated, tv.Labels, k, wantLabels)
	}
	t.Logf("tab registered after %v with shard %s (labels %v)", time.Since(t0).Round(time.Millisecond), tv.Shard, tv.Labels)

	// Poll until every peer is done and has evaluated its final model;
	// note the tab's roles on the way.
	roles := map[string]bool{}
	maxCandidates := 0
	var views []methodView
	waitUntil(t, "every peer done", 180*time.Second, time.Second, func() string {
		views = views[:0]
		var why []string
		tv, err := tabMethodView(tb)
		if err != nil {
			t.Fatal(err)
		}
		if m := tv.Method; m != nil {
			roles[m.Role] = true
			maxCandidates = max(maxCandidates, len(m.Candidates))
		}
		for _, v := range append([]methodView{tv}, nativeViews(natives)...) {
			switch m := v.Method; {
			case m == nil:
				why = append(why, v.Name+" not learning yet")
			case m.Method != "pens":
				t.Fatalf("%s runs %+v", v.Name, m)
			case m.Role != "done" || !v.EvalFinal || v.EvalRound < rounds:
				why = append(why, fmt.Sprintf("%s %s round %d (evaluated at %d, final %v)", v.Name, m.Role, m.Round, v.EvalRound, v.EvalFinal))
			default:
				views = append(views, v)
			}
		}
		return strings.Join(why, "; ")
	})
	t.Logf("all %d peers done after %v; the tab's roles seen: %v, at most %d candidates a round", n, time.Since(t0).Round(time.Second), slices.Sorted(maps.Keys(roles)), maxCandidates)

	right, all := 0, 0
	var mean float64
	for _, v := range views {
		me := shard[v.ID]
		var line []string
		ok := 0
		for _, nb := range v.Method.Neighbours {
			s, known := shard[nb]
			if !known {
				t.Errorf("%s: neighbour %v is none of the %d peers", v.Name, nb, n)
				continue
			}
			line = append(line, fmt.Sprintf("%d:%v", s, shards[s].Rotated))
			if shards[s].Rotated == shards[me].Rotated {
				ok++
			}
		}
		right, all = right+ok, all+len(v.Method.Neighbours)
		mean += v.Accuracy / n
		t.Logf("%s shard %d rotated=%v: accuracy %.3f, neighbours %v (of %d peers)", v.Name, me, shards[me].Rotated, v.Accuracy, line, v.Method.Peers)
	}
	precision := float64(right) / float64(max(all, 1))
	t.Logf("precision %d/%d = %.3f over the tab and %d natives, mean own-distribution accuracy %.4f", right, all, precision, n-1, mean)
	tab := views[0]
	keptTab := 0 // natives that kept the tab: only one whose step 1 saw it
	for _, v := range views[1:] {
		if slices.Contains(v.Method.Neighbours, tab.ID) {
			keptTab++
		}
	}
	t.Logf("the tab: %d trainings, models received %d, sent %d, %d messages refused, %d rounds timed out; kept by %d natives",
		tab.Rounds, tab.Method.ModelsReceived, tab.Method.ModelsSent, tab.Method.Refused, tab.Method.Timeouts, keptTab)
	if len(tab.Method.Neighbours) == 0 || slices.ContainsFunc(tab.Method.Neighbours, func(nb ident.Peer) bool { return shards[shard[nb]].Rotated != shards[k].Rotated }) {
		t.Errorf("the tab's PENS neighbours %v are not all of its (rotated) cluster", tab.Method.Neighbours)
	}
	// precision over all eight is logged, not asserted: a native whose
	// step 1 ran while the overlay formed can keep one of the other
	// cluster (16/18, 23/27 measured on loaded machines). That PENS's
	// step 2 keeps its own cluster is protocol/method's
	// TestPENSFindsItsCluster (8 cores, precision >= 0.9) and
	// sim/scenario's TestPENSRotatedQuick, deterministic; here the tab,
	// which joins a formed overlay, must keep only its own.
	if tab.Accuracy < trainedAcc {
		t.Errorf("the tab's accuracy on its rotated test set %.3f, want >= %.2f: it did not train", tab.Accuracy, trainedAcc)
	}
	// The tab's trainings are counted, not sampled: with the SIMD
	// kernels a training takes a fraction of the 1 s poll, which saw the
	// role "training" in some runs and not in others.
	if tab.Rounds < rounds || maxCandidates == 0 {
		t.Errorf("the tab trained %d times (want %d; roles seen %v), at most %d candidates a round", tab.Rounds, rounds, roles, maxCandidates)
	}
	if text, err := pageMethodText(tb); err != nil || !strings.HasPrefix(text, "pens") || !strings.Contains(text, "done") || !strings.Contains(text, "neighbours") {
		t.Errorf("the page shows the method as %q (%v)", text, err)
	} else {
		t.Logf("the page shows: %s", text)
	}
	checkPage(t, tb, "browser-pens", pensRings) // the method line and its neighbour column at desktop and phone widths
	for _, p := range natives {
		p.Stop(t)
	}
}

// nativeViews reads the natives' /status; one that does not answer is
// a view without a method, named with the error.
func nativeViews(natives []*proc) []methodView {
	out := make([]methodView, 0, len(natives))
	for _, p := range natives {
		v, err := nativeMethodView(p)
		if err != nil {
			v = methodView{Name: fmt.Sprintf("%s (%v)", p.Name, err)}
		}
		out = append(out, v)
	}
	return out
}
