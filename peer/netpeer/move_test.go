package netpeer

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/peer/node"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal/server"
	"github.com/peerlearn/peerlearn/signal/server/servertest"
	"github.com/peerlearn/peerlearn/types/ident"
	"github.com/peerlearn/peerlearn/types/key"
)

// TestPeerMoves: a learning peer told to move (the neighbourhood
// check's request stepped into its core, node.ReplaceAsked: what a
// captured neighbourhood's FedLay round raises) gets a new key admitted
// and moves (move.go). It comes back under the new key's ID, placed at
// other coordinates, and the other peers, which refuse a peer without a
// valid admission token, take it as a neighbour; its old ID leaves
// every table (its Leave); its model's round does not go back and it
// trains on at the new place; the overlay is the correct one of the IDs
// now. Asked again, it refuses: one move a run (Move.Max 1), counted.
func TestPeerMoves(t *testing.T) {
	url, tid := startSignal(t, "netpeer-move", func(s *task.Spec) {
		s.PeriodMS, s.LocalEpochs, s.LocalSteps, s.Aggregator = 500, 0, 2, "fedlay"
	})
	log := &testLog{}
	ask, moved := make(chan string, 1), make(chan key.Pair, 1)
	const n = 5
	peers := moverAmongPeers(t, url, tid, n, 400, log, ask, node.MoveConfig{Max: 1, Every: time.Hour},
		func(k key.Pair) { moved <- k }) // once: Max 1
	spaces := DefaultConfig().Overlay.Spaces
	pollUntil(t, 90*time.Second, 100*time.Millisecond, func() (bool, string) {
		sts := statusesOf(peers)
		if d := WrongNeighbours(sts, spaces); d != "" {
			return false, "overlay before the move: " + d
		}
		if l := sts[0].Learn; l == nil || l.Rounds < 2 {
			return false, fmt.Sprintf("the mover trained %+v rounds, want 2", sts[0].Learn)
		}
		return true, ""
	})
	before := peers[0].Status()
	oldID, r0 := before.ID, before.Learn.Rounds
	ask <- "the test says so"
	asked := time.Now()
	var k key.Pair
	select {
	case k = <-moved:
	case <-time.After(90 * time.Second): // bounded: a proof of work and a handshake on a loaded machine
		log.dump(t)
		t.Fatalf("no move within 90 s: %+v", peers[0].Status().Moves)
	}
	newID := hexID(k.ID())
	if newID == oldID {
		t.Fatalf("moved to the same ID %s", newID)
	}
	pollUntil(t, 90*time.Second, 100*time.Millisecond, func() (bool, string) {
		sts := statusesOf(peers)
		me := sts[0]
		if me.ID != newID || me.State != "member" {
			return false, fmt.Sprintf("the mover is %.8s (%s), want %.8s a member", me.ID, me.State, newID)
		}
		for _, s := range sts[1:] {
			if slices.Contains(s.Neighbors, oldID) || slices.ContainsFunc(s.Table, func(a AdjacentHex) bool { return a.Pred == oldID || a.Succ == oldID }) {
				return false, fmt.Sprintf("%.8s still lists the old ID %.8s", s.ID, oldID)
			}
		}
		if d := WrongNeighbours(sts, spaces); d != "" {
			return false, "overlay after the move: " + d
		}
		if len(me.Neighbors) == 0 {
			return false, "the mover has no neighbours"
		}
		if l := me.Learn; l.Rounds <= r0 {
			return false, fmt.Sprintf("the mover at round %d, %d before the move: want it to train on", l.Rounds, r0)
		}
		return true, ""
	})
	after := peers[0].Status()
	t.Logf("moved %.8s -> %.8s, settled %v after the request; round %d before, %d after; %d neighbours, placement %v -> %v",
		oldID, newID, time.Since(asked).Round(time.Millisecond), r0, after.Learn.Rounds, len(after.Neighbors), before.Placement[oldID], after.Placement[newID])
	mv := after.Moves
	if mv == nil || mv.Moves != 1 || mv.Tries != 1 || mv.Failed != 0 || !slices.Equal(mv.Previous, []string{oldID}) {
		t.Fatalf("moves %+v: want 1 move from %.8s", mv, oldID)
	}
	if pb, pa := before.Placement[oldID], after.Placement[newID]; len(pa) == 0 || slices.Equal(pb, pa) {
		t.Errorf("placement %v before, %v after: want the new admission's own", pb, pa)
	}
	ask <- "again"
	pollUntil(t, 30*time.Second, 50*time.Millisecond, func() (bool, string) {
		mv := peers[0].Status().Moves
		return mv.Refused["limit"] == 1 && mv.Asked == 2, fmt.Sprintf("moves %+v: want the second request refused at the limit", mv)
	})
	if s := peers[0].Status(); s.ID != newID || s.Moves.Moves != 1 {
		t.Errorf("after a refused request: %.8s, %+v", s.ID, s.Moves)
	}
}

// TestPeerMoveRefusedAdmission: a move pays what any newcomer pays. A
// server that counts loopback's admissions (Exempt emptied) and admits
// only as many keys as there are peers refuses the mover's new key:
// the failure is counted, the peer stays where it is, under its ID, a
// member of a correct overlay, and a request within Move.Every of the
// failed try is refused in cooldown (a refusing server is not asked
// again at once).
func TestPeerMoveRefusedAdmission(t *testing.T) {
	const n = 3
	spec, tid := servertest.Task(t, "netpeer-move-refused", func(s *task.Spec) {
		s.PeriodMS, s.LocalEpochs, s.LocalSteps, s.Aggregator = 500, 0, 2, "fedlay"
	})
	scfg := server.DefaultConfig()
	scfg.Tasks = []task.Spec{spec}
	scfg.Admission.Exempt = nil
	scfg.Admission.IPBurst, scfg.Admission.IPPerHour = n, 1e-6 // no refill within the test
	srv, err := server.New(scfg)
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := servertest.Serve(t, srv)
	url := servertest.SignalURL(addr)
	log := &testLog{}
	ask := make(chan string, 1)
	peers := moverAmongPeers(t, url, tid, n, 500, log, ask, node.MoveConfig{Max: 3, Every: time.Hour},
		func(key.Pair) { t.Error("moved without an admission") })
	spaces := DefaultConfig().Overlay.Spaces
	pollUntil(t, 90*time.Second, 100*time.Millisecond, func() (bool, string) {
		d := WrongNeighbours(statusesOf(peers), spaces)
		return d == "", "overlay before the move: " + d
	})
	oldID := peers[0].Status().ID
	ask <- "the test says so"
	pollUntil(t, 60*time.Second, 50*time.Millisecond, func() (bool, string) {
		mv := peers[0].Status().Moves
		return mv.Failed == 1, fmt.Sprintf("moves %+v: want the try failed", mv)
	})
	ask <- "again"
	pollUntil(t, 30*time.Second, 50*time.Millisecond, func() (bool, string) {
		mv := peers[0].Status().Moves
		return mv.Refused["cooldown"] == 1, fmt.Sprintf("moves %+v: want the second request refused in cooldown", mv)
	})
	sts := statusesOf(peers)
	if me := sts[0]; me.ID != oldID || me.State != "member" || me.Moves.Tries != 1 || me.Moves.Moves != 0 || len(me.Moves.Previous) != 0 {
		t.Errorf("after a refused admission: %.8s (%s), moves %+v: want it where it was", me.ID, me.State, me.Moves)
	}
	if d := WrongNeighbours(sts, spaces); d != "" {
		t.Errorf("overlay after the refused move: %s", d)
	}
	log.mu.Lock()
	why := slices.IndexFunc(log.lines, func(l string) bool {
		return strings.Contains(l, "move: no new place") && strings.Contains(l, "admissions from")
	})
	log.mu.Unlock()
	if why < 0 {
		t.Error("no log line says the move failed for the server's admission limit")
	}
}

// TestPeerMovesWhenCaptured: the real decision path. A peer running the
// neighbourhood check (node.HealthOn) among neighbours that all trained
// on one class only, so that their models fail its data, finds its
// neighbourhood captured; the check's request reaches its core through
// FedLay's round, and the peer moves by itself, once (Move.Max 1), under
// a new ID, its round not going back. Every other peer is hostile, so the
// check alarms whichever of them the overlay makes its neighbours: with
// one honest peer among the five, 2 of 30 runs placed the mover with it
// and one hostile peer only, 1 of 2 disagreeing, no alarm. This asserts
// the mechanism, not an escape (the lab's victims measure that:
// docs/SECURITY.md).
func TestPeerMovesWhenCaptured(t *testing.T) {
	url, tid := startSignal(t, "netpeer-move-captured", func(s *task.Spec) {
		s.PeriodMS, s.LocalEpochs, s.LocalSteps, s.Aggregator = 500, 0, 5, "fedlay"
	})
	log := &testLog{}
	test := synthetic(200, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 7)
	const n = 5
	peers := runPeers(t, n, 0, log, func(i int) Config {
		cfg := testPeerConfig(t, url, tid, 600+i, log)
		classes := []int{0, 1, 2}
		if i >= 1 {
			classes = []int{9} // models that answer 9 for everything
		}
		lc := classLearner(classes, 300, uint64(i), test, cfg.Tick)
		if i == 0 {
			build := lc.Build
			lc.Build = func(spec task.Spec, id ident.Peer) (*learn.Peer, *data.Dataset, error) {
				lp, ts, err := build(spec, id)
				if err != nil {
					return nil, nil, err
				}
				lcfg := lp.Config()
				node.HealthOn(&lcfg, lp.Local().Classes)
				lp, err = learn.NewPeer(lcfg, lp.Local())
				return lp, ts, err
			}
			cfg.Move = node.MoveConfig{Max: 1, Every: time.Hour}
		}
		cfg.Learn = lc
		return cfg
	})
	oldID := peers[0].Status().ID
	var r0 int
	pollUntil(t, 120*time.Second, 100*time.Millisecond, func() (bool, string) {
		s := peers[0].Status()
		if s.ID == oldID && s.Learn != nil {
			r0 = s.Learn.Rounds
		}
		mv, l := s.Moves, s.Learn
		if mv == nil || mv.Moves != 1 || s.ID == oldID || s.State != "member" || l == nil || l.Rounds < r0 {
			rounds, health := -1, HealthStatus{}
			if l != nil {
				rounds = l.Rounds
				if l.Health != nil {
					health = *l.Health
				}
			}
			return false, fmt.Sprintf("the mover %.8s (%s): moves %+v, round %d, health %+v: want it moved once, a member, round >= %d", s.ID, s.State, mv, rounds, health, r0)
		}
		return true, ""
	})
	s := peers[0].Status()
	t.Logf("moved %.8s -> %.8s at round %d (now %d); moves %+v; health now %+v", oldID, s.ID, r0, s.Learn.Rounds, s.Moves, s.Learn.Health)
	if s.Moves.Asked < 1 || s.Moves.Tries != 1 || !slices.Equal(s.Moves.Previous, []string{oldID}) {
		t.Errorf("moves %+v: want the check's request taken once, from %.8s", s.Moves, oldID)
	}
	log.mu.Lock()
	why := slices.IndexFunc(log.lines, func(l string) bool { return strings.Contains(l, "move: neighbourhood captured") })
	log.mu.Unlock()
	if why < 0 {
		t.Error("no log line says the neighbourhood was captured")
	}
}

// moverAmongPeers runs n loopback peers learning three classes each
// (keys from seed on), peer 0 the mover: it moves within mv when a
// request comes on ask (the test's hook into its core), and onMove sees
// its new key.
func moverAmongPeers(t *testing.T, url string, tid ident.Task, n, seed int, log *testLog, ask chan string, mv node.MoveConfig, onMove func(key.Pair)) []*Peer {
	t.Helper()
	test := synthetic(200, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 7)
	return runPeers(t, n, 0, log, func(i int) Config {
		cfg := testPeerConfig(t, url, tid, seed+i, log)
		cfg.Learn = classLearner([]int{(3 * i) % 10, (3*i + 1) % 10, (3*i + 2) % 10}, 200, uint64(i), test, cfg.Tick)
		if i == 0 {
			cfg.Move, cfg.askMove, cfg.OnMove = mv, ask, onMove
		}
		return cfg
	})
}
