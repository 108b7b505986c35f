package netpeer

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/mep"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// The spec fields a real peer used to accept and ignore (issue #23), each
// checked on the configuration path a real peer runs (LearnerConfig,
// newLearner, NewCore), in process, without the network: no processes,
// no sleeps.

const specTick = 100 * time.Millisecond

// specID is test peer i's ID.
func specID(i int) ident.Peer { return ident.PeerFromPublicKey(fmt.Appendf(nil, "spec fields %d", i)) }

// fieldSpec is a small valid task: the MLP on MNIST-shaped data, one
// local step a round, a 1 s period (10 ticks).
func fieldSpec(mutate func(*task.Spec)) task.Spec {
	s := task.DefaultSpec()
	s.Name, s.PeriodMS, s.LocalEpochs, s.LocalSteps = "spec-fields", 1000, 0, 1
	if mutate != nil {
		mutate(&s)
	}
	return s
}

// asMethod sets what a method core needs to be accepted.
func asMethod(m string) func(*task.Spec) {
	return func(s *task.Spec) {
		s.Method = m
		if m == "fedlay" {
			return
		}
		s.Aggregator = "mean"
		switch m {
		case "pens":
			s.Selection = task.Selection{Policy: "random", K: 2}
		case "plexus":
			s.Init = task.Init{Mode: "common", Seed: 3}
		}
	}
}

// specLearner builds peer i's learning peer and learner for spec, as
// Run does (LearnerConfig, learn.NewPeer, newLearner), without a
// transport.
func specLearner(t *testing.T, spec task.Spec, i int) (*learner, *learn.Peer) {
	t.Helper()
	train := synthetic(64, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, uint64(i))
	lc, err := node.LearnerConfig(spec, specID(i), train, specTick)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := learn.NewPeer(lc, train)
	if err != nil {
		t.Fatal(err)
	}
	l, err := newLearner(LearnConfig{Build: func(task.Spec, ident.Peer) (*learn.Peer, *data.Dataset, error) { return lp, nil, nil }},
		spec, lp, nil, nil, specTick, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	return l, lp
}

// "tiers": true under FedLay: each peer's tier and period come from its
// ID (mep.CapacityOf: 1 in 5 high at 2/3 of the period, 1 in 5 low at
// twice it), its neighbours' periods likewise, and /status says both.
// Nothing in the real peer read spec.Tiers: every peer ran the task's
// period.
func TestTiersRunOnRealPeers(t *testing.T) {
	base := node.TaskPeriod(fieldSpec(nil), specTick)
	train := synthetic(16, []int{0, 1}, 1)
	seen := map[mep.Tier]int{}
	for i := range 200 {
		for _, tiers := range []bool{false, true} {
			spec := fieldSpec(func(s *task.Spec) { s.Tiers = tiers })
			c, err := node.LearnerConfig(spec, specID(i), train, specTick)
			if err != nil {
				t.Fatal(err)
			}
			want := mep.Capacity{Tier: mep.TierMedium, Period: base}
			if tiers {
				want = mep.CapacityOf(specID(i), base)
				seen[want.Tier]++
			}
			if c.MEP.Tier != want.Tier || c.MEP.Period != want.Period || c.MEP.JoinWait != want.Period {
				t.Fatalf("tiers %v, peer %d: tier %v period %d join wait %d, want %v %d", tiers, i, c.MEP.Tier, c.MEP.Period, c.MEP.JoinWait, want.Tier, want.Period)
			}
		}
	}
	if len(seen) != 3 || seen[mep.TierMedium] < seen[mep.TierHigh] || seen[mep.TierMedium] < seen[mep.TierLow] {
		t.Errorf("tiers over 200 peers: %v", seen)
	}

	spec := fieldSpec(func(s *task.Spec) { s.Tiers = true })
	l, lp := specLearner(t, spec, 0)
	var nbrs []ident.Peer
	for i := 1; len(nbrs) < 8 && i < 100; i++ {
		nbrs = append(nbrs, specID(i))
	}
	l.method.SetPeers(nbrs)
	periods := map[int]bool{}
	for _, n := range lp.Neighbors() {
		if p := mep.CapacityOf(n.ID, base).Period; n.Period != p {
			t.Errorf("neighbour %v: period %d, its tier's %d", n.ID, n.Period, p)
		}
		periods[n.Period] = true
	}
	if len(periods) < 2 {
		t.Errorf("8 neighbours, all of period %v: the test's IDs should span tiers", periods)
	}
	st := l.status()
	if own := mep.CapacityOf(specID(0), base); st.Tier != own.Tier.String() || st.Period != own.Period {
		t.Errorf("status tier %q period %d, want %v %d", st.Tier, st.Period, own.Tier, own.Period)
	}
}

// "max_rounds" under FedLay: the MEP starts no round after max_rounds
// and the status says done. Only the method cores got it: max_rounds 3
// ran 68 rounds.
func TestFedLayStopsAtMaxRounds(t *testing.T) {
	spec := fieldSpec(func(s *task.Spec) { s.MaxRounds = 3 })
	l, lp := specLearner(t, spec, 0)
	l.method.SetPeers(nil)
	rig := newCoreRig(t, l, specTick)
	period := lp.Config().MEP.Period
	for range 10 * period {
		rig.step() // a Work runs on its goroutine, as on a real peer
	}
	st := l.status()
	if st.Rounds != 3 || !st.Done || !lp.Done() {
		t.Errorf("after %d periods: %d rounds, done %v; want 3, true", 10, st.Rounds, st.Done)
	}
	if lp.Config().MEP.MaxRounds != 3 {
		t.Errorf("MEP MaxRounds %d", lp.Config().MEP.MaxRounds)
	}
}

// coreStart is the model a fresh core trains (or, for Gossip, merges and
// sends) first.
func coreStart(c method.Core) []float32 {
	if rd := c.Ready(); rd.Train != nil {
		return rd.Train.Params
	}
	return c.Model()
}

// "init": he-gain with gain 0: the gain of the size estimate reaches the
// model every method trains from. The method cores were built from the
// plain He model and trained from it, while /status said "init gain 2".
func TestInitGainReachesEveryMethod(t *testing.T) {
	const gain = 2
	for _, m := range node.RealMethods() {
		if m == "plexus" {
			continue // common initialisation only (task validation)
		}
		t.Run(m, func(t *testing.T) {
			spec := fieldSpec(asMethod(m))
			spec.Init = task.Init{Mode: "he-gain"}
			if !node.NeedsSizeEstimate(spec) {
				t.Fatal("no size estimate")
			}
			l, lp := specLearner(t, spec, 1)
			plain, err := lp.Params()
			if err != nil {
				t.Fatal(err)
			}
			l.method.SetPeers([]ident.Peer{specID(2), specID(3)})
			if err := l.method.ScaleInit(gain); err != nil {
				t.Fatal(err)
			}
			var got []float32
			if l.method.FedLay() == nil {
				got = coreStart(l.method.Core())
				if st := l.method.Core().Status(); st.Peers != 2 {
					t.Errorf("the rebuilt core has %d peers, want the overlay's 2", st.Peers)
				}
			} else if got, err = lp.Params(); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(plain) {
				t.Fatalf("%d parameters, want %d", len(got), len(plain))
			}
			nonzero := 0
			for i := range plain {
				if got[i] != gain*plain[i] {
					t.Fatalf("parameter %d: %v, want %d x %v", i, got[i], gain, plain[i])
				}
				if plain[i] != 0 {
					nonzero++
				}
			}
			if nonzero == 0 {
				t.Fatal("an all-zero initial model proves nothing")
			}
		})
	}
}

// peerRuns is what the real peer built for a spec runs, read off its
// learning peer, its learner and its method core.
type peerRuns struct {
	method     string   // the core's Status().Method ("fedlay": node.FedLay, learn.Peer's MEP)
	tier       mep.Tier // the MEP's (every core runs the task's period)
	period     int      // the MEP period in ticks (NewCore's period too)
	maxRounds  int      // the MEP's MaxRounds, or the core's Status().MaxRounds
	aggregator string   // learn.Peer's rule (the MEP's; a core mixes by its own weights)
	estimates  bool     // a network-size estimate runs before training
	start      []float32
}

// runsOf builds peer i for spec as Run does and reads what it runs; a
// peer waiting for its size estimate gets gain (as the peer core hands it out)
// before its start model is read.
func runsOf(t *testing.T, spec task.Spec, i int, gain float64) peerRuns {
	t.Helper()
	l, lp := specLearner(t, spec, i)
	l.method.SetPeers([]ident.Peer{specID(1000), specID(1001)})
	c := lp.Config()
	r := peerRuns{method: "fedlay", tier: c.MEP.Tier, period: c.MEP.Period, maxRounds: c.MEP.MaxRounds,
		aggregator: c.Aggregator, estimates: node.NeedsSizeEstimate(spec)}
	if r.estimates {
		if err := l.method.ScaleInit(gain); err != nil {
			t.Fatal(err)
		}
	}
	st := l.status()
	if l.method.FedLay() == nil {
		ms := l.method.Core().Status()
		r.method, r.maxRounds = ms.Method, ms.MaxRounds
		r.start = coreStart(l.method.Core())
		if st.MaxRounds != ms.MaxRounds || st.Method == nil {
			t.Errorf("%s: /status max_rounds %d, the core's %d", r.method, st.MaxRounds, ms.MaxRounds)
		}
		return r
	}
	// FedLay's core: its status names it, /status has no Method (its
	// counters are the MEP's) and the MEP's tier, period and max_rounds.
	if ms := l.method.Core().Status(); ms.Method != "fedlay" || ms.MaxRounds != c.MEP.MaxRounds || st.Method != nil {
		t.Errorf("FedLay core status %+v, /status method %v", ms, st.Method)
	}
	if st.Tier != c.MEP.Tier.String() || st.Period != c.MEP.Period || st.MaxRounds != c.MEP.MaxRounds || st.Target != spec.TargetAccuracy {
		t.Errorf("/status tier %q period %d max_rounds %d target %v, the peer runs %v %d %d (target %v)",
			st.Tier, st.Period, st.MaxRounds, st.Target, c.MEP.Tier, c.MEP.Period, c.MEP.MaxRounds, spec.TargetAccuracy)
	}
	var err error
	if r.start, err = lp.Params(); err != nil {
		t.Fatal(err)
	}
	return r
}

func scaled(v []float32, g float32) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = g * x
	}
	return out
}

// Every combination of method, tiers, max_rounds, init and aggregator a
// spec can hold is either refused by validation (the rule is written out
// here, apart from the code) or run by the real peer: each field's value
// is what the peer built for the spec does (its MEP's or core's method,
// tier, period, max_rounds, its aggregator, the model it trains from).
// Three of the fields issue #23 found accepted and ignored (tiers,
// FedLay's max_rounds, he-gain's estimated gain under a method core)
// each failed here; the fourth, PENS's max_rounds + 1 trainings, is
// protocol/method's TestPENSTrainsMaxRounds (the core's count, not its
// configuration).
func TestEverySpecFieldRunsOrIsRefused(t *testing.T) {
	// A peer of the low tier: with tiers its period is twice the task's.
	self := -1
	for i := range 100 {
		if mep.TierOf(specID(i)) == mep.TierLow {
			self = i
			break
		}
	}
	if self < 0 {
		t.Fatal("no low-tier ID among 100")
	}
	const estimated = 3 // the gain a size estimate gives
	base := fieldSpec(nil)
	he := runsOf(t, base, self, 0).start // the peer's plain He model
	common := fieldSpec(func(s *task.Spec) { s.Init = task.Init{Mode: "common", Seed: 3} })
	shared := runsOf(t, common, self+1, 0).start // another peer's common model
	inits := []task.Init{{Mode: "he"}, {Mode: "he-gain"}, {Mode: "he-gain", Gain: 2}, {Mode: "common", Seed: 3}}
	accepted, refused := map[string]int{}, 0
	for _, m := range task.MethodNames() {
		for _, tiers := range []bool{false, true} {
			for _, rounds := range []int{0, 3} {
				for _, in := range inits {
					for _, agg := range task.AggregatorNames() {
						spec := fieldSpec(asMethod(m))
						spec.Tiers, spec.MaxRounds, spec.Init, spec.Aggregator = tiers, rounds, in, agg
						name := fmt.Sprintf("%s tiers=%v max_rounds=%d init=%s/%v aggregator=%s", m, tiers, rounds, in.Mode, in.Gain, agg)
						wantRefused := m != "fedlay" && (tiers || agg != "mean") || m == "plexus" && in.Mode != "common"
						err := spec.ValidateFor(node.TaskEngine{})
						if (err != nil) != wantRefused || err != nil && !errors.Is(err, task.ErrInvalid) {
							t.Errorf("%s: validation says %v, want refused %v", name, err, wantRefused)
							continue
						}
						if err != nil {
							refused++
							continue
						}
						accepted[m]++
						got := runsOf(t, spec, self, estimated)
						want := peerRuns{method: m, tier: mep.TierMedium, period: spec.PeriodMS / 100, maxRounds: rounds, aggregator: agg,
							estimates: in.Mode == "he-gain" && in.Gain == 0}
						if tiers {
							want.tier, want.period = mep.TierLow, 2*want.period
						}
						switch {
						case in.Mode == "common":
							want.start = shared
						case in.Gain > 0:
							want.start = scaled(he, float32(in.Gain))
						case in.Mode == "he-gain":
							want.start = scaled(he, estimated)
						default:
							want.start = he
						}
						if got.method != want.method || got.tier != want.tier || got.period != want.period || got.maxRounds != want.maxRounds ||
							got.aggregator != want.aggregator || got.estimates != want.estimates {
							t.Errorf("%s: the peer runs %+v, want %+v", name, runsWithout(got), runsWithout(want))
						}
						if !slices.Equal(got.start, want.start) {
							t.Errorf("%s: trains from another model than the spec's init", name)
						}
					}
				}
			}
		}
	}
	if slices.Equal(he, shared) {
		t.Fatal("the common model is the peer's own He model: init proves nothing")
	}
	for _, m := range task.MethodNames() {
		if accepted[m] == 0 {
			t.Errorf("method %s: no combination accepted", m)
		}
	}
	t.Logf("accepted %v, refused %d", accepted, refused)
}

// runsWithout is r without its model, to print.
func runsWithout(r peerRuns) peerRuns { r.start = nil; return r }

// target_accuracy: the peer's /status says when an evaluation of its
// model reached it (the task counts as done there); nothing read it.
func TestTargetAccuracyReported(t *testing.T) {
	spec := fieldSpec(func(s *task.Spec) { s.TargetAccuracy = 0.9 })
	l, _ := specLearner(t, spec, 0)
	rig := newCoreRig(t, l, specTick)
	for _, c := range []struct {
		acc     float64
		reached bool
	}{{0.5, false}, {0.89, false}, {0.93, true}, {0.7, true}} { // once reached, it stays
		if err := rig.n.Step(node.Evaluated{Accuracy: c.acc, Round: 1}); err != nil {
			t.Fatal(err)
		}
		if st := l.status(); st.TargetReached != c.reached || st.Target != 0.9 {
			t.Errorf("after accuracy %v: target %v reached %v, want %v", c.acc, st.Target, st.TargetReached, c.reached)
		}
	}
}
