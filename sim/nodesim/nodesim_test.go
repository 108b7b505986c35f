package nodesim

import (
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/types/ident"
)

// build starts n peers half a second apart and runs until all have had
// time to join.
func build(t *testing.T, cfg Config, n int) *Sim {
	t.Helper()
	s, _ := start(t, cfg, n, 500*time.Millisecond)
	s.Run(20 * time.Second)
	return s
}

// start makes a simulation of cfg and adds peers 0 to n-1, running
// stagger after each (0: all at once); it returns their IDs in order.
func start(t *testing.T, cfg Config, n int, stagger time.Duration) (*Sim, []ident.Peer) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]ident.Peer, n)
	for i := range n {
		if ids[i], err = s.Add(i); err != nil {
			t.Fatal(err)
		}
		if stagger > 0 {
			s.Run(stagger)
		}
	}
	return s, ids
}

func checkCorrect(t *testing.T, s *Sim, what string) {
	t.Helper()
	if c := s.Overlay(s.Live()); !c.OK() {
		t.Fatalf("%s at %v: the overlay of %d live peers is not correct: %+v", what, s.Now(), len(s.Live()), c)
	}
	if len(s.Errors) > 0 {
		t.Fatalf("%s: the cores refused the simulation's events: %v", what, s.Errors)
	}
}

// TestKilledQuarterRepairedAround: 16 real peer cores join one by one
// through the in-memory signalling server's contacts and form the correct
// overlay; a quarter of them crash without a word, and the survivors'
// failure detectors and repairs rebuild the correct overlay of the 12
// left, with no registration needed (none is cut off).
func TestKilledQuarterRepairedAround(t *testing.T) {
	s := build(t, DefaultConfig(), 16)
	checkCorrect(t, s, "after the joins")
	live := s.Live()
	for _, i := range []int{2, 5, 9, 13} { // 4 peers spread over the join order
		if err := s.Kill(live[i]); err != nil {
			t.Fatal(err)
		}
	}
	s.Run(30 * time.Second)
	if got := len(s.Live()); got != 12 {
		t.Fatalf("%d live peers, want 12", got)
	}
	checkCorrect(t, s, "after a quarter crashed")
	if s.Dials[node.Rebootstrap] != 0 {
		t.Errorf("%d re-bootstraps: no survivor was cut off", s.Dials[node.Rebootstrap])
	}
	for _, id := range s.Live() {
		if s.Node(id).Removed() == 0 {
			continue
		}
		return // at least one survivor dropped a dead neighbour: the repair was exercised
	}
	t.Fatal("no survivor dropped a neighbour")
}

// TestPartitionHeals: 12 peers split into two halves for 20 s, longer
// than the failure timeout, so each half repairs into an overlay of its
// own and remembers neighbours that failed; after the heal the overlay's
// merge probes and the Registrar's split checks (a registration with the
// server for fresh contacts while a split is suspected) join them into
// the one correct overlay again.
func TestPartitionHeals(t *testing.T) {
	s := build(t, DefaultConfig(), 12)
	checkCorrect(t, s, "after the joins")
	live := s.Live()
	a, b := live[:6], live[6:]
	if err := s.Partition(a, b); err != nil {
		t.Fatal(err)
	}
	s.Run(20 * time.Second)
	for _, half := range [][]ident.Peer{a, b} {
		if c := s.Overlay(half); !c.OK() {
			t.Fatalf("a half did not repair into its own overlay during the cut: %+v", c)
		}
	}
	s.Heal()
	s.Run(3 * time.Minute)
	checkCorrect(t, s, "after the heal")
}

// TestSameSeedSameRun: the simulation is deterministic: the same seed
// gives the same tables and the same traffic.
func TestSameSeedSameRun(t *testing.T) {
	run := func() (uint64, []ident.Peer) {
		s := build(t, DefaultConfig(), 12)
		if err := s.Kill(s.Live()[3]); err != nil {
			t.Fatal(err)
		}
		s.Run(10 * time.Second)
		id := s.Live()[0]
		return s.net.Total().Sent, s.Node(id).Neighbors()
	}
	sent1, nb1 := run()
	sent2, nb2 := run()
	if sent1 != sent2 || len(nb1) != len(nb2) {
		t.Fatalf("two runs of one seed differ: %d vs %d messages, neighbours %v vs %v", sent1, sent2, nb1, nb2)
	}
	for i := range nb1 {
		if nb1[i] != nb2[i] {
			t.Fatalf("two runs of one seed differ: neighbours %v vs %v", nb1, nb2)
		}
	}
}

// TestCutOffPeerRegistersAgain: one peer of 16 loses its network for
// 20 s: its neighbours drop it and it drops them, its links close, and
// it is cut off (neither a neighbour nor a link), which no repair can
// mend from its side. On the Registrar's schedule (RebootstrapAfter, and
// backing off while the network is gone) it registers with the server
// again and joins through the new welcome's contacts; once its network is
// back the 16 form the one correct overlay.
func TestCutOffPeerRegistersAgain(t *testing.T) {
	s := build(t, DefaultConfig(), 16)
	checkCorrect(t, s, "after the joins")
	lonely := s.Live()[7]
	if err := s.Disconnect(lonely); err != nil {
		t.Fatal(err)
	}
	s.Run(20 * time.Second)
	if n := len(s.Node(lonely).Neighbors()); n != 0 || s.Dials[node.Rebootstrap] == 0 {
		t.Fatalf("offline for 20 s: %d neighbours, %d re-bootstraps dialled; want none and some", n, s.Dials[node.Rebootstrap])
	}
	s.Heal()
	s.Run(time.Minute)
	if reb, _, _ := s.Node(lonely).Registrations(); reb == 0 {
		t.Fatalf("the cut-off peer adopted no re-bootstrap (%d dialled in all)", s.Dials[node.Rebootstrap])
	}
	checkCorrect(t, s, "after the re-bootstrap")
}

// TestFrozenPeerComesBack: one peer of 16 is frozen (its process
// stopped: a laptop that sleeps, a phone that freezes a background tab)
// for 20 s, longer than its neighbours' failure timeout and the links'
// close, at 4 seeds: the 15 others drop it and form their correct
// overlay without it, and unlike TestCutOffPeerRegistersAgain's peer it
// does nothing meanwhile (no tick, no registration). Thawed, it gets its
// links' closes at once and its clock 20 s on: with no link left and its
// welcome's bootstrap window long over, no connection to anyone can be
// signalled, so it registers with the server again and the 16 form the
// one correct overlay (e2e/native's TestE2EFrozenPeerComesBack, SIGSTOP
// and SIGCONT on a process, on the real core at fixed seeds). Which
// registration brings it back is the Registrar's: a re-bootstrap once it
// finds itself cut off, or the bridge registration it owed while a split
// was suspected if that falls due first (seed 2); both count.
func TestFrozenPeerComesBack(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		cfg := DefaultConfig()
		cfg.Seed = seed
		s := build(t, cfg, 16)
		checkCorrect(t, s, "after the joins")
		frozen := s.Live()[7]
		if err := s.Freeze(frozen); err != nil {
			t.Fatal(err)
		}
		sentBefore := s.net.Counters(frozen).Sent
		s.Run(20 * time.Second)
		others := slices.DeleteFunc(s.Live(), func(id ident.Peer) bool { return id == frozen })
		if c := s.Overlay(others); !c.OK() || s.Dials[node.Rebootstrap] != 0 || s.net.Counters(frozen).Sent != sentBefore {
			t.Fatalf("seed %d, frozen for 20 s: the others' overlay %+v, %d re-bootstraps dialled, %d messages sent by the frozen peer; want correct, none, none",
				seed, c, s.Dials[node.Rebootstrap], s.net.Counters(frozen).Sent-sentBefore)
		}
		for _, id := range others {
			if slices.Contains(s.Node(id).Neighbors(), frozen) {
				t.Fatalf("seed %d: %v still has the frozen peer as a neighbour", seed, id)
			}
		}
		reb0, bridges0, _ := s.Node(frozen).Registrations()
		if err := s.Thaw(frozen); err != nil {
			t.Fatal(err)
		}
		s.Run(time.Minute)
		reb, bridges, _ := s.Node(frozen).Registrations()
		reb, bridges = reb-reb0, bridges-bridges0 // since the thaw
		t.Logf("seed %d: thawed; %d re-bootstraps, %d bridge registrations, %d neighbours dropped by it; %d messages lost for want of signalling in the run",
			seed, reb, bridges, s.Node(frozen).Removed(), s.Unsignalled)
		if reb+bridges == 0 {
			t.Errorf("seed %d: the thawed peer rejoined without registering again", seed)
		}
		checkCorrect(t, s, "after the thaw")
	}
}
