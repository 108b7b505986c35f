package browser

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/plexus"
	"github.com/peerlearn/peerlearn/types/ident"
)

// plexusSpec is peer/netpeer's TestE2EPlexus12 task for n peers with
// max_peers maxPeers (node.PlexusConfig: samples of maxPeers/2).
func plexusSpec(n, maxPeers int, target float64) string {
	return fmt.Sprintf(`{"aggregator":"mean","arch":"mlp","batch":32,"dataset":"mnist","init":{"gain":0,"mode":"common","seed":7},`+
		`"local_epochs":0,"local_steps":50,"max_peers":%d,"max_rounds":0,"method":"plexus","name":"browser-plexus",`+
		`"optimizer":{"lr":0.05,"momentum":0.9,"name":"sgd","weight_decay":0},"partition":{"parts":%d,"seed":1,"spec":"dirichlet:0.5"},`+
		`"period_ms":2000,"selection":{"k":0,"policy":"overlay"},"spaces":%d,"target_accuracy":%v,"tiers":false,"version":2}`, maxPeers, n, plexusRings, target)
}

// plexusRings is plexusSpec's overlay ring count L.
const plexusRings = 3

// TestBrowserPlexus: a headless Chromium tab and seven native peers run a
// Plexus task (samples of 5 of the 8). From every peer's status, the
// tab's page status included:
//   - every report with a full view (8 members) names the round's sample
//     and aggregator that hash(ID, round) gives over the 8 IDs,
//     recomputed here: the tab's view is the natives';
//   - the tab (its ID made the smallest) is in the recomputed sample of
//     some rounds, trains, reports itself as their aggregator and
//     aggregates rounds;
//   - every aggregated round was aggregated by its recomputed aggregator
//     (or, where that one timed out, by the next-ranked members);
//   - the tab and the natives train (the tab's accuracy and the
//     natives' mean far above chance, trainedAcc; the accuracy and the
//     savings Plexus reaches are sim/scenario's TestPlexusQuick's claim,
//     deterministic, not a threshold for 8 processes on 2 cores);
//   - the page shows the method and the tab's role.
func TestBrowserPlexus(t *testing.T) {
	parallelHeavy(t)
	bin := chromium(t)
	dir := dataDir(t)
	peerBin, sigBin, wasmDir := build(t, dir)
	const n, maxPeers, target = 8, 10, 0.85
	s := min(13, max(2, maxPeers/2)) // node.PlexusConfig's sample size
	srv := startTaskServer(t, sigBin, wasmDir, plexusSpec(n, maxPeers, target))

	// The tab first: Plexus starts round 1 once the view has settled, so
	// the natives joining within seconds of each other all start in it.
	// Its ID begins with a zero byte: it is the smallest in (almost)
	// every sample it is in, so it aggregates those rounds.
	t0 := time.Now()
	seed := seedWithIDBelow(rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 18)), 1)
	tb := joinTab(t, bin, "tab", srv, fmt.Sprintf("shard=%d/%d&evalEvery=2000&evalSamples=2000", n-1, n), seed)
	tv, err := tabMethodView(tb)
	if err != nil {
		t.Fatal(err)
	}
	ids := []ident.Peer{tv.ID}
	var natives []*proc
	for i := range n - 1 {
		p := startPeer(t, peerBin, fmt.Sprintf("native%d", i), srv.sigURL, "-task", srv.taskFile, "-data", dir,
			"-shard", fmt.Sprintf("%d/%d", i, n), "-eval-every", "2s", "-eval-samples", "2000")
		natives = append(natives, p)
		id, err := ident.ParsePeer(p.ID)
		if err != nil {
			t.Fatalf("%s: ID %q", p.Name, p.ID)
		}
		ids = append(ids, id)
	}
	name := map[ident.Peer]string{tv.ID: "tab"}
	for i, p := range natives {
		name[ids[i+1]] = p.Name
	}
	view, _ := plexus.NewView()
	for _, id := range ids {
		view.Add(id, 1) //nolint:errcheck // non-zero; every real peer advertises 1
	}
	ranking := func(k uint64) []ident.Peer { return view.Ranking(k, s) }

	aggregatedBy := map[uint64][]ident.Peer{}
	tabRoles := map[string]int{}
	tabReports, reports := 0, 0
	sampled := map[uint64]bool{} // rounds seen in a full report -> the tab in their sample
	// convergedAt: the newest round any peer reported at the first poll
	// where every peer's view held all n members. Rounds up to it may
	// have run on a partial view (a peer starts once its view has held
	// still for 2 periods; under load the natives start further apart),
	// so their aggregator is not the one the full view ranks first.
	var convergedAt uint64
	converged := false
	var last []methodView
	waitUntil(t, "the tab aggregates Plexus rounds", 180*time.Second, 500*time.Millisecond, func() string {
		tv, err = tabMethodView(tb)
		if err != nil {
			t.Fatal(err)
		}
		last = append([]methodView{tv}, nativeViews(natives)...)
		var why []string
		var sum float64
		for i, v := range last {
			m := v.Method
			if m == nil {
				why = append(why, v.Name+" not learning yet")
				continue
			}
			if m.Method != "plexus" {
				t.Fatalf("%s runs %+v", v.Name, m)
			}
			if err := method.CheckPlexusStatus(*m, ranking, n); err != nil {
				t.Fatalf("%s: %v", v.Name, err)
			}
			if m.Members != n {
				why = append(why, fmt.Sprintf("%s sees %d members", v.Name, m.Members))
			} else if m.Round > 0 {
				reports++
				k := uint64(m.Round)
				sampled[k] = slices.Contains(ranking(k), ids[0])
				if i == 0 {
					tabReports++
					tabRoles[m.Role]++
				}
			}
			for _, k := range m.Aggregated {
				if !slices.Contains(aggregatedBy[k], v.ID) {
					aggregatedBy[k] = append(aggregatedBy[k], v.ID)
				}
			}
			switch {
			case v.Evals == 0:
				why = append(why, v.Name+" not evaluated yet")
			case i == 0 && v.Accuracy < trainedAcc:
				why = append(why, fmt.Sprintf("tab at %.3f", v.Accuracy))
			case i > 0:
				sum += v.Accuracy
			}
		}
		if !converged {
			full, newest := true, uint64(0)
			for _, v := range last {
				if v.Method == nil || v.Method.Members != n {
					full = false
				} else {
					newest = max(newest, uint64(v.Method.Round))
				}
			}
			converged, convergedAt = full, newest
		}
		if mean := sum / (n - 1); mean < trainedAcc {
			why = append(why, fmt.Sprintf("natives' mean %.3f", mean))
		}
		in := 0
		for _, ok := range sampled {
			if ok {
				in++
			}
		}
		byTab := 0
		for _, by := range aggregatedBy {
			if slices.Contains(by, ids[0]) {
				byTab++
			}
		}
		if in == 0 || last[0].Rounds == 0 || tabRoles["aggregator"] == 0 || byTab == 0 {
			why = append(why, fmt.Sprintf("tab in the sample of %d rounds, trained %d times, aggregated %d, roles seen %v", in, last[0].Rounds, byTab, tabRoles))
		}
		if tabReports < 3 {
			why = append(why, fmt.Sprintf("%d full reports from the tab", tabReports))
		}
		// The ranking is checked on rounds after every view held all
		// members: wait for one. Rounds are fast (a flake-report run saw
		// 1,190 before the views filled, and stopped at that very poll).
		after := false
		for k := range aggregatedBy {
			after = after || (converged && k > convergedAt)
		}
		if !after {
			why = append(why, fmt.Sprintf("no round aggregated yet after every view held all %d members (converged %v at round %d)", n, converged, convergedAt))
		}
		if len(why) == 0 {
			t.Logf("after %v: the tab in the recomputed sample of %d of %d rounds seen, trained %d times (round cut: %q), its roles %v in %d full reports, all agreeing; %d full reports from all",
				time.Since(t0).Round(time.Second), in, len(sampled), last[0].Rounds, last[0].Capped, tabRoles, tabReports, reports)
		}
		return strings.Join(why, "; ")
	})
	var accs []string
	for _, v := range last {
		accs = append(accs, fmt.Sprintf("%s %.3f", v.Name, v.Accuracy))
	}
	t.Logf("accuracy: %s", strings.Join(accs, ", "))

	rounds := slices.Sorted(maps.Keys(aggregatedBy))
	fallbacks, deepest, byTab, formation := 0, 0, 0, 0
	for _, k := range rounds {
		if !converged || k <= convergedAt {
			formation++ // possibly run on a partial view: not ranked here
			continue
		}
		r := ranking(k)
		for _, by := range aggregatedBy[k] {
			// Who may aggregate round k: the first of its sample S^k that
			// the aggregator's view has not marked missed (every status
			// is checked for that above, CheckPlexusStatus). Here, with
			// no view's missed set at hand: a member of S^k. A rank
			// below the first is the timeout path or the ranks ahead of
			// it missed theirs (plexus.View.Missed, which a loaded
			// machine's slow members earn; a flake-report run saw an
			// aggregator ranked fourth in the full view).
			switch i := slices.Index(r, by); {
			case i == 0:
			case i > 0:
				fallbacks++
				deepest = max(deepest, i)
			default:
				t.Errorf("round %d aggregated by %s, not of its sample %v", k, name[by], r)
			}
			if by == ids[0] {
				byTab++
			}
		}
	}
	if len(rounds) == 0 {
		t.Fatal("no round reported as aggregated")
	}
	if len(rounds) == formation {
		t.Errorf("no round aggregated after every view held all %d members (at round %d, converged %v)", n, convergedAt, converged)
	}
	t.Logf("%d rounds aggregated (%d..%d), %d by the tab, %d by a fallback rank (the deepest rank %d); %d up to round %d, before every view was full, not ranked", len(rounds), rounds[0], rounds[len(rounds)-1], byTab, fallbacks, deepest, formation, convergedAt)
	text, err := pageMethodText(tb)
	shown := regexp.MustCompile(fmt.Sprintf(`^plexus: (trainer|aggregator|idle), round [1-9][0-9]*, .*; %d members, sample of %d \(this tab (not )?in it\), aggregator `, n, s))
	if err != nil || !shown.MatchString(text) {
		t.Errorf("the page shows the method as %q (%v)", text, err)
	} else {
		t.Logf("the page shows: %s", text)
	}
	checkPage(t, tb, "browser-plexus", plexusRings) // the method line and its neighbour column at desktop and phone widths
	for _, p := range natives {
		p.Stop(t)
	}
}
