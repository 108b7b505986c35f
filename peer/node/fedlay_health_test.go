package node

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/health"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// A FedLay core whose peer runs the neighbourhood check (HealthOn) hears
// four neighbours, three of which send a model that answers one class
// for everything: the check finds the neighbourhood captured and the
// core says so in its log with each request for a new placement, one at
// capture and then at most every Cooldown alarming rounds (the bound of
// engine/health), and never without one.
func TestFedLayCoreHealthCaptured(t *testing.T) {
	spec, lp := checkedPeer(t)
	var asks int
	c, err := NewFedLayCore(spec, lp, fedlayTick, FedLayHooks{Logf: func(f string, a ...any) {
		if strings.HasPrefix(fmt.Sprintf(f, a...), "health: neighbourhood captured") {
			asks++
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	honest, liars, send := capturingNeighbours(t, lp, c)
	round := func() { runRound(t, c) }
	round() // the first model: nothing to aggregate yet
	for range 16 {
		send(honest, false)
		for _, id := range liars {
			send(id, true)
		}
		round()
	}
	hs, ok := lp.Health()
	t.Logf("health %+v, %d requests logged", hs, asks)
	cfg := lp.Config().Health.Check // as HealthOn set it
	if !ok || hs.State != health.Captured || hs.Disagree < len(liars) {
		t.Fatalf("health %+v: want captured, the %d liars disagreeing", hs, len(liars))
	}
	if most := 1 + (hs.Alarming-cfg.Patience)/cfg.Cooldown; asks != hs.Replacements || asks < 2 || asks > most {
		t.Errorf("%d requests logged, the check counted %d in %d alarming rounds: want them equal, 2..%d", asks, hs.Replacements, hs.Alarming, most)
	}
}

// The same captured neighbourhood with the core a Node drives (NewMethod,
// as netpeer builds it): each request of the check reaches the Node's
// move decision through FedLay's OnReplace, the first asks the shell to
// move (one Ready.Move), the later ones, while that move is out, are
// refused as in progress and counted. The shell's failed admission is
// counted and starts the wait between tries; a move that succeeds
// carries the learner to the new ID with its model and round
// (Method.Moved), and its neighbourhood check starts afresh.
func TestNodeMoveDecisionWhenCaptured(t *testing.T) {
	spec, lp := checkedPeer(t)
	meth, err := NewMethod(spec, lp, fedlayTick, nil)
	if err != nil {
		t.Fatal(err)
	}
	ov := overlay.DefaultConfig()
	ov.Spaces = 2
	now := time.Unix(1000, 0)
	n, err := New(Config{ID: fedlayID(0), Overlay: ov, Server: "s", Method: meth, Move: MoveConfig{Max: 2, Every: time.Hour},
		Registrar: RegistrarConfig{Servers: []string{"s"}, Rand: rand.New(rand.NewPCG(1, 1))}}, now)
	if err != nil {
		t.Fatal(err)
	}
	fl := meth.FedLay()
	honest, liars, send := capturingNeighbours(t, lp, fl)
	var moves []MoveRequest
	// round ticks the Node until it hands out a training, runs it and
	// brings it back; it keeps every MoveRequest.
	round := func() {
		t.Helper()
		for range 10 * lp.Config().MEP.Period {
			now = now.Add(fedlayTick)
			n.Tick(now)
			rd := n.Ready()
			if rd.Train == nil {
				continue
			}
			rd.Train.Run()
			if err := n.Step(TrainDone{Job: rd.Train}); err != nil {
				t.Fatal(err)
			}
			if rd := n.Ready(); rd.Move != nil {
				moves = append(moves, *rd.Move)
			}
			return
		}
		t.Fatal("no round came due")
	}
	round()
	for range 16 {
		send(honest, false)
		for _, id := range liars {
			send(id, true)
		}
		round()
	}
	hs, _ := lp.Health()
	mv := n.Moves()
	t.Logf("health %+v, moves %+v", hs, mv)
	if hs.State != health.Captured || hs.Replacements < 2 {
		t.Fatalf("health %+v: want captured, asking again", hs)
	}
	if mv.Asked != hs.Replacements || mv.Tries != 1 || len(moves) != 1 || mv.Refused["in_progress"] != mv.Asked-1 || !n.Moving() {
		t.Fatalf("moves %+v, %d requests handed out, for %d the check asked: want one try, the rest refused in progress", mv, len(moves), hs.Replacements)
	}
	if !strings.HasPrefix(moves[0].Why, "neighbourhood captured") {
		t.Errorf("move asked for %q", moves[0].Why)
	}
	if err := n.Step(MoveDone{Err: errors.New("admissions used up")}); err != nil {
		t.Fatal(err)
	}
	if err := n.Step(MoveDone{}); err == nil {
		t.Error("a second MoveDone for one request: accepted")
	}
	if err := n.Step(ReplaceAsked{Why: "again"}); err != nil {
		t.Fatal(err)
	}
	if mv := n.Moves(); mv.Failed != 1 || mv.Refused["cooldown"] != 1 || n.Moving() || n.Ready().Move != nil {
		t.Fatalf("moves %+v after a failed try and a request within the hour: want it failed, the request refused in cooldown", mv)
	}
	round0, model := meth.RoundsDone(), slices.Clone(lp.Published())
	carry := n.Carry()
	if err := meth.Moved(fedlayID(9)); err != nil {
		t.Fatal(err)
	}
	if lp.Config().ID != fedlayID(9) || meth.RoundsDone() != round0 || !slices.Equal(lp.Published(), model) {
		t.Errorf("after Moved: ID %v, round %d (was %d), model kept %v", lp.Config().ID, meth.RoundsDone(), round0, slices.Equal(lp.Published(), model))
	}
	if hs, _ := lp.Health(); hs.State == health.Captured || hs.Rounds != 0 {
		t.Errorf("after Moved the check is %+v: want it afresh", hs)
	}
	n2, err := New(Config{ID: fedlayID(9), Overlay: ov, Server: "s", Method: meth, Move: MoveConfig{Max: 2, Every: time.Hour}, Carried: &carry,
		Registrar: RegistrarConfig{Servers: []string{"s"}, Rand: rand.New(rand.NewPCG(1, 1))}}, now)
	if err != nil {
		t.Fatal(err)
	}
	if mv := n2.Moves(); mv.Asked != carry.Moves.Asked || mv.Failed != 1 || mv.Tries != 1 {
		t.Errorf("the new core's moves %+v: want the old one's %+v", mv, carry.Moves)
	}
	if err := n2.Step(ReplaceAsked{Why: "at the new place"}); err != nil {
		t.Fatal(err)
	}
	if mv := n2.Moves(); mv.Refused["cooldown"] != 2 {
		t.Errorf("the new core's moves %+v: want the wait since the last try carried over", mv)
	}
}

// checkedPeer is a FedLay learner on synthetic data (10 classes) running
// the neighbourhood check (HealthOn), with its spec.
func checkedPeer(t *testing.T) (task.Spec, *learn.Peer) {
	t.Helper()
	spec := fedlaySpec(nil)
	syn := data.NewSynthetic(rand.New(rand.NewPCG(99, 99)), [3]int{28, 28, 1}, 10, 0.3)
	train := syn.Draw(rand.New(rand.NewPCG(0, 7)), 64, syn.Cycle)
	lc, err := LearnerConfig(spec, fedlayID(0), train, fedlayTick)
	if err != nil {
		t.Fatal(err)
	}
	HealthOn(&lc, train.Classes)
	lp, err := learn.NewPeer(lc, train)
	if err != nil {
		t.Fatal(err)
	}
	return spec, lp
}

// capturingNeighbours gives the core c four neighbours, one honest and
// three liars, and returns send, which delivers a neighbour's next
// model: lp's published one with a little noise, or (oneClass) one that
// answers class 0 for everything, its output bias raised far above the
// others.
func capturingNeighbours(t *testing.T, lp *learn.Peer, c *FedLay) (honest ident.Peer, liars []ident.Peer, send func(id ident.Peer, oneClass bool)) {
	t.Helper()
	honest, liars = fedlayID(1), []ident.Peer{fedlayID(2), fedlayID(3), fedlayID(4)}
	if err := c.SetPeers(append([]ident.Peer{honest}, liars...)); err != nil {
		t.Fatal(err)
	}
	classes := lp.Local().Classes
	rng := rand.New(rand.NewPCG(1, 2))
	vers := map[ident.Peer]uint64{}
	send = func(id ident.Peer, oneClass bool) {
		ps := slices.Clone(lp.Published())
		for i := range ps {
			ps[i] += 0.05 * float32(rng.NormFloat64())
		}
		if oneClass {
			ps[len(ps)-classes] += 50 // the output bias of class 0
		}
		vers[id]++
		stepModel(t, c, id, vers[id], ps)
	}
	return honest, liars, send
}
