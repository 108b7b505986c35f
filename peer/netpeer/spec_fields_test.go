package netpeer

import (
	"fmt"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/peer/learn"
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
	lc, err := LearnerConfig(spec, specID(i), train, specTick)
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
	base := taskPeriod(fieldSpec(nil), specTick)
	train := synthetic(16, []int{0, 1}, 1)
	seen := map[mep.Tier]int{}
	for i := range 200 {
		for _, tiers := range []bool{false, true} {
			spec := fieldSpec(func(s *task.Spec) { s.Tiers = tiers })
			c, err := LearnerConfig(spec, specID(i), train, specTick)
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
	l.setNeighbors(nbrs)
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
	l.setNeighbors(nil)
	period := lp.Config().MEP.Period
	for range 10 * period {
		l.tick()
		l.flush()
		if lp.Busy() {
			l.finish(<-l.workDone) // the Work runs on its goroutine, as on a real peer
		}
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
	for _, m := range RealMethods() {
		if m == "plexus" {
			continue // common initialisation only (task validation)
		}
		t.Run(m, func(t *testing.T) {
			spec := fieldSpec(asMethod(m))
			spec.Init = task.Init{Mode: "he-gain"}
			if !needsSizeEstimate(spec) {
				t.Fatal("no size estimate")
			}
			l, lp := specLearner(t, spec, 1)
			plain, err := lp.Params()
			if err != nil {
				t.Fatal(err)
			}
			l.setNeighbors([]ident.Peer{specID(2), specID(3)})
			if err := l.scaleInit(gain); err != nil {
				t.Fatal(err)
			}
			var got []float32
			if l.method != nil {
				got = coreStart(l.method.core)
				if st := l.method.core.Status(); st.Peers != 2 {
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
