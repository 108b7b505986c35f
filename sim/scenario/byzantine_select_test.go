package scenario

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/engine/health"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/sim/dflsim"
	"github.com/peerlearn/peerlearn/theory/topology"
)

// TestByzantineSelect: a subset keeps f = 0 and plain fedlay's no-attack
// run (every gap's reference), runs only the named seeds, attacks and
// rules, and refuses what it does not know.
func TestByzantineSelect(t *testing.T) {
	p := byzScale(false)
	if p.orders != 3 {
		t.Errorf("full lab: %d training orders per cell, want 3", p.orders)
	}
	if err := p.applySelect("f=0.3 seeds=2,3 attacks=ipm,label-flip rules=clipped-fedlay orders=2 codec=delta-int4"); err != nil {
		t.Fatal(err)
	}
	if p.holdout != 0 || !p.healthBest || p.patience != 1 || !p.stay {
		t.Errorf("full lab: hold-out %v, against best %v, patience %d, stay %v; want the check as a real peer runs it by default (node.HealthOn, -health-moves 0)", p.holdout, p.healthBest, p.patience, p.stay)
	}
	if err := p.applySelect("holdout=0.2 healthref=self patience=2 moves=1"); err != nil || p.holdout != 0.2 || p.healthBest || p.patience != 2 || p.stay {
		t.Errorf("holdout=0.2 healthref=self patience=2 moves=1: %v, %v %v %d %v", err, p.holdout, p.healthBest, p.patience, p.stay)
	}
	if p.quorum != 0 {
		t.Errorf("full lab: quorum %v, want engine/health's default (zero)", p.quorum)
	}
	if err := p.applySelect("quorum=0.66"); err != nil || p.quorum != 0.66 {
		t.Errorf("quorum=0.66: %v, %v", err, p.quorum)
	}
	if p.echo != nil || (&byzStudy{p: p}).healthConfig().EchoBelow != health.DefaultConfig().EchoBelow {
		t.Errorf("full lab: echo %v, want engine/health's default", p.echo)
	}
	if err := p.applySelect("echo=0.5"); err != nil || p.echo == nil || (&byzStudy{p: p}).healthConfig().EchoBelow != 0.5 {
		t.Errorf("echo=0.5: %v, the check's echo bound %v", err, (&byzStudy{p: p}).healthConfig().EchoBelow)
	}
	if p.trigger != "" {
		t.Errorf("full lab: trigger %q, want the corner (zero)", p.trigger)
	}
	if err := p.applySelect("trigger=centre"); err != nil || p.trigger != dflsim.TriggerCentre {
		t.Errorf("trigger=centre: %v, %q", err, p.trigger)
	}
	if p.balance {
		t.Error("full lab: the attackers balance against every rule, want only against the sign check")
	}
	if err := p.applySelect("balance=1"); err != nil || !p.balance {
		t.Errorf("balance=1: %v, %v", err, p.balance)
	}
	if p.exposure {
		t.Error("full lab: exposure split on, want off")
	}
	if err := p.applySelect("exposure=1"); err != nil || !p.exposure {
		t.Errorf("exposure=1: %v, %v", err, p.exposure)
	}
	if p.cutback || p.unaligned {
		t.Errorf("full lab: cutback %v, unaligned %v, want both off", p.cutback, p.unaligned)
	}
	if err := p.applySelect("cutback=1 moves=0 align=0"); err != nil || !p.cutback || !p.stay || !p.unaligned {
		t.Errorf("cutback=1 moves=0 align=0: %v, cutback %v, stay %v, unaligned %v", err, p.cutback, p.stay, p.unaligned)
	}
	for _, bad := range []string{"holdout=0.5", "healthref=mean", "patience=0", "trigger=middle", "trigger=", "balance=yes", "exposure=2", "cutback=yes", "moves=2", "align=no", "victims=01", "quorum=0.4", "quorum=1", "quorum=x", "echo=1", "echo=-0.1", "echo=x"} {
		if err := p.applySelect(bad); !errors.Is(err, errSelect) {
			t.Errorf("%s: %v, want errSelect", bad, err)
		}
	}
	if p.orders != 2 || p.codec != "delta-int4" {
		t.Errorf("orders=2 codec=delta-int4: %d orders, codec %q", p.orders, p.codec)
	}
	if !slices.Equal(p.fractions, []float64{0, 0.3}) || !slices.Equal(p.seedList(5), []uint64{6, 7}) ||
		!slices.Equal(p.attacks, []string{"ipm", "label-flip"}) {
		t.Errorf("fractions %v seeds %v attacks %v", p.fractions, p.seedList(5), p.attacks)
	}
	if !slices.Equal(p.rulesAt(0), []string{"fedlay", "clipped-fedlay"}) || !slices.Equal(p.rulesAt(0.3), []string{"clipped-fedlay"}) {
		t.Errorf("rules at 0 %v, at 0.3 %v", p.rulesAt(0), p.rulesAt(0.3))
	}
	full := byzScale(false)
	if err := full.applySelect(""); err != nil || !slices.Equal(full.seedList(1), []uint64{1, 2, 3}) || full.selected != "" {
		t.Errorf("empty spec: %v, seeds %v", err, full.seedList(1))
	}
	if len(p.adaptive) != 0 || p.backdoorF != 0 || len(newByzStudy(p).attacksAt(0.3)) != 3 {
		t.Errorf("attacks=ipm,label-flip: adaptive %v, backdoor at %v, runs at 0.3 %v", p.adaptive, p.backdoorF, newByzStudy(p).attacksAt(0.3))
	}
	radii := byzScale(false)
	if err := radii.applySelect("rules=coordclipped16-fedlay,coordclipped-fedlay+health,median,clipped-fedlay+drift+health,clipped-fedlay+suspend,coordclipped4-s2-fedlay,clipped-fedlay+screen,clipped-fedlay+drift+screen+health,clipped-fedlay+screenout"); err != nil ||
		!slices.Equal(radii.rulesAt(0.2), []string{"coordclipped16-fedlay", "coordclipped-fedlay+health", "median", "clipped-fedlay+drift+health", "clipped-fedlay+suspend", "coordclipped4-s2-fedlay", "clipped-fedlay+screen", "clipped-fedlay+drift+screen+health", "clipped-fedlay+screenout"}) {
		t.Errorf("rules with a coordinate radius: %v, rules %v", err, radii.rulesAt(0.2))
	}
	mixed := byzScale(true)
	if err := mixed.applySelect("attacks=sign-flip,collapse,backdoor victims=1"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(mixed.attacks, []string{"sign-flip"}) || !slices.Equal(mixed.adaptive, []string{"collapse"}) ||
		mixed.backdoorF != byzBackdoorF || !mixed.victims || !slices.Equal(mixed.allFractions(), []float64{0, 0.2, byzBackdoorF}) ||
		!slices.Equal(newByzStudy(mixed).attacksAt(byzBackdoorF), []string{dflsim.AttackBackdoor}) {
		t.Errorf("attacks=sign-flip,collapse,backdoor: attacks %v adaptive %v backdoor at %v victims %v fractions %v",
			mixed.attacks, mixed.adaptive, mixed.backdoorF, mixed.victims, mixed.allFractions())
	}
	none := byzScale(false)
	if err := none.applySelect("f=0 rules=clipped-fedlay orders=16"); err != nil {
		t.Fatal(err)
	}
	if st := newByzStudy(none); !slices.Equal(none.allFractions(), []float64{0}) || none.victims || len(st.victimAttacks()) != 0 ||
		!slices.Equal(st.attacksAt(0), []string{dflsim.AttackNone}) || !slices.Equal(none.rulesAt(0), []string{"fedlay", "clipped-fedlay"}) {
		t.Errorf("f=0: fractions %v victims %v runs at 0 %v rules %v, want the no-attack row alone", none.allFractions(), none.victims, st.attacksAt(0), none.rulesAt(0))
	}
	for _, bad := range []string{"f=0 attacks=ipm", "f=0 victims=1", "attacks=backdoor f=0", "f=0,0.2", "f=0.0", "f=0.6", "f=x", "seeds=0", "attacks=nope", "colour=red", "f", "orders=0", "orders=x", "orders=17", "victims=2", "codec=zip", "codec=int8:3", "rules=nope", "rules=clipped-fedlay,coordclipped0-fedlay", "rules=coordclipped16-median+health", "rules=clipped-fedlay+health+drift", "rules=clipped-fedlay+health+screen", "rules=clipped-fedlay+screen+drift", "rules=clipped-fedlay+suspend+drift",
		"rules=coordclipped4-s0-fedlay", "rules=coordclipped4-s2-median", "rules=coordclipped4-s-fedlay"} {
		q := byzScale(false)
		if err := q.applySelect(bad); !errors.Is(err, errSelect) {
			t.Errorf("%q: %v, want errSelect", bad, err)
		}
	}
}

// TestByzantineExposure counts by hand on the path 0-1-2-3-4. With
// peers 1 and 3 Byzantine every honest peer (0, 2, 4) has only Byzantine
// neighbours. With peer 1 alone: peer 0 has no honest neighbour, peer 2
// a tie (one of two), peers 3 and 4 none Byzantine.
func TestByzantineExposure(t *testing.T) {
	g, err := topology.NewGraph(5)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}} {
		if _, err := g.AddEdge(e[0], e[1]); err != nil {
			t.Fatal(err)
		}
	}
	e := exposureOf(g, []bool{false, true, false, true, false})
	if e != (byzExposure{honest: 3, half: 3, majority: 3, none: 3, degree: 4.0 / 3}) {
		t.Errorf("%+v", e)
	}
	e = exposureOf(g, []bool{false, true, false, false, false})
	// Peer 0: its only neighbour Byzantine (none); peer 2: one of two
	// (half); peers 3 and 4: none Byzantine.
	if e != (byzExposure{honest: 4, half: 2, majority: 1, none: 1, degree: 6.0 / 4}) {
		t.Errorf("%+v", e)
	}
	// exposure=1 splits the cell's accuracy by the same half: peers 0 and
	// 2 exposed, 3 and 4 not, the attacker 1 in neither group.
	byz := []bool{false, true, false, false, false}
	var got []bool
	for i := range 5 {
		got = append(got, exposed(g, byz, i))
	}
	if want := []bool{true, false, true, false, false}; !slices.Equal(got, want) {
		t.Errorf("exposed %v, want %v", got, want)
	}
}

// TestByzantineSummaryNA: a subset that ran plain fedlay only without
// attack prints worst_gap_none=NA (it printed -Inf); the best robust
// rule's gap is plain fedlay's no-attack accuracy minus its worst cell.
// With no robust rule run at f = 0.2 both gaps are NA, and so are the
// adaptive gap and the backdoor's success where the subset ran neither.
func TestByzantineSummaryNA(t *testing.T) {
	p := byzScale(false)
	if err := p.applySelect("f=0.2 seeds=1 attacks=label-flip rules=clipped-fedlay"); err != nil {
		t.Fatal(err)
	}
	s := newByzStudy(p)
	o := Options{Seed: 1}
	s.acc[byzKey{0, 1, "fedlay", "none"}] = 0.81
	s.acc[byzKey{0.2, 1, "clipped-fedlay", "label-flip"}] = 0.795
	if got, want := s.summary(o), "scenario=byzantine f=0.2 worst_gap_none=NA worst_gap_best=1.50 worst_gap_adaptive=NA backdoor_asr=NA best=clipped-fedlay"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	s.p.rules = []string{"fedlay"}
	s.acc[byzKey{0.2, 1, "fedlay", "label-flip"}] = 0.78
	if got, want := s.summary(o), "scenario=byzantine f=0.2 worst_gap_none=3.00 worst_gap_best=NA worst_gap_adaptive=NA backdoor_asr=NA best=NA"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

// TestByzantineReportSubsetCost: a subset without the default defence
// says its cost without attack was not run (it printed plain fedlay's
// accuracy as the cost, the missing run reading as 0).
func TestByzantineReportSubsetCost(t *testing.T) {
	r, _ := subsetReport(t, "clipped-dechw", "label-flip")
	if !strings.Contains(r, "cost of the default defence without attack: not run (subset without "+byzDefault+")") ||
		strings.Contains(r, "81.00 points") {
		t.Errorf("report:\n%s", r)
	}
}

// subsetReport is the report of a one-seed subset at f = 0.2 of rule
// under attack (a no-attack run, the attackers silent, the attack), with
// made-up accuracies; and its summary line.
func subsetReport(t *testing.T, rule, attack string) (report, summary string) {
	t.Helper()
	p := byzScale(false)
	if err := p.applySelect("f=0.2 seeds=1 attacks=" + attack + " rules=" + rule); err != nil {
		t.Fatal(err)
	}
	s := newByzStudy(p)
	o := Options{Seed: 1, OutDir: t.TempDir()}
	s.acc[byzKey{0, 1, "fedlay", "none"}] = 0.81
	s.acc[byzKey{0, 1, rule, "none"}] = 0.80
	s.acc[byzKey{0.2, 1, rule, "absent"}] = 0.80
	s.acc[byzKey{0.2, 1, rule, attack}] = 0.78
	var out strings.Builder
	if _, _, err := s.report(o, &out); err != nil {
		t.Fatal(err)
	}
	return out.String(), s.summary(o)
}

// TestByzantineReportAdaptiveOnly: a subset of adaptive attacks only
// prints NA for the ordinary attacks' worst gap, says no defence ran
// under them, and prints no per-seed lines of them (it printed -Inf and
// +Inf).
func TestByzantineReportAdaptiveOnly(t *testing.T) {
	r, summary := subsetReport(t, byzDefault, "adaptive")
	if strings.Contains(r, "Inf") || !strings.Contains(r, "best defence none run under attack (subset)") {
		t.Errorf("report:\n%s", r)
	}
	if !strings.Contains(summary, "worst_gap_none=NA worst_gap_best=NA worst_gap_adaptive=3.00") {
		t.Errorf("summary %q", summary)
	}
}

// TestByzantineOrderEdit: order 0 is the seed's own run; order r > 0
// reseeds every peer's training differently per order and keeps the
// peer's ID and the adversary's edit.
func TestByzantineOrderEdit(t *testing.T) {
	calls := 0
	adv := func(i int, c *learn.Config) { calls++; c.Aggregator = "edited" }
	base := learn.Config{ID: dflsim.PeerID(1, 3), Seed: 42}
	seeds := map[uint64]int{}
	for r := range 3 {
		c := base
		orderEdit(adv, r)(3, &c)
		if c.ID != base.ID || c.Aggregator != "edited" {
			t.Errorf("order %d: ID %v aggregator %q", r, c.ID, c.Aggregator)
		}
		if (r == 0) != (c.Seed == base.Seed) {
			t.Errorf("order %d: seed %d (base %d)", r, c.Seed, base.Seed)
		}
		seeds[c.Seed]++
	}
	if len(seeds) != 3 || calls != 3 {
		t.Errorf("seeds %v, edit called %d times", seeds, calls)
	}
	c := base
	orderEdit(nil, 1)(0, &c)
	if c.Seed == base.Seed {
		t.Error("order 1 without an edit kept the seed")
	}
}

// TestByzantineSelectAsync: async=1 runs the no-attack row alone, its
// check never moves a peer, and what it cannot run is refused up front.
func TestByzantineSelectAsync(t *testing.T) {
	p := byzScale(false)
	if p.async {
		t.Fatal("full lab: asynchronous, want synchronous rounds")
	}
	if err := p.applySelect("f=0 async=1 rules=clipped-fedlay,clipped-fedlay+health orders=4"); err != nil || !p.async || !p.stay || len(p.fractions) != 1 {
		t.Fatalf("f=0 async=1: %v, async %v, stay %v, fractions %v", err, p.async, p.stay, p.fractions)
	}
	if err := selectFresh("async=1 f=0 moves=0"); err != nil {
		t.Errorf("async=1 f=0 moves=0 (keys in any order): %v", err)
	}
	if err := selectFresh("f=0 async=1 rules=clipped-fedlay+drift,keepshare-fedlay+suspend+health"); err != nil {
		t.Errorf("async=1 with the drift test (kept on, DriftConfig.Async): %v", err)
	}
	for _, bad := range []string{
		"async=1",                                 // attacks at the lab's fractions
		"f=0.2 async=1",                           // an attacker fraction
		"f=0 async=1 moves=1",                     // the asynchronous check never moves
		"f=0 async=1 codec=delta-int4",            // not run
		"f=0 async=1 holdout=0.2",                 // the real peer scores its shard
		"f=0 async=1 exposure=1",                  // nobody is exposed without attackers
		"f=0 async=1 rules=clipped-fedlay+screen", // the screen is not run asynchronously
		"f=0 async=yes",
	} {
		if err := selectFresh(bad); !errors.Is(err, errSelect) {
			t.Errorf("%s: %v, want errSelect", bad, err)
		}
	}
}

// selectFresh applies spec to the full lab's parameters.
func selectFresh(spec string) error {
	p := byzScale(false)
	return p.applySelect(spec)
}
