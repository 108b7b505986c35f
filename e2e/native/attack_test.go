//go:build !js

package native

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/internal/proctest"
	"github.com/peerlearn/peerlearn/protocol/task"
)

// attackerBinary is cmd/peerlearn built with -tags attack (netpeer's
// attack.go: PEERLEARN_ATTACK rewrites the models the peer sends).
func attackerBinary(t *testing.T) string {
	t.Helper()
	return proctest.Binary(t, "peerlearn-attack", "../../cmd/peerlearn", "attack")
}

// attackSpec: every model the attacker sends is its own times -10
// (sign-flipped: it pulls an average away from what the honest peers
// learn, where a plain scale-up might only saturate ReLUs; at -100 plain
// averaging overflows and the honest rounds fail, which freezes the
// honest models rather than showing the damage), claiming 2^40 training
// samples and a perfectly balanced label set (data confidence 1, which
// FedLay's weights favour).
const attackSpec = "scale=-10,datasize=1099511627776,conf=1"

// attackRun is one run of the attack scenario.
type attackRun struct {
	honest   []*proc
	attacker *proc
}

// startAttackRun starts a signalling server, n honest `peerlearn peer`
// processes (the plain binary) and one attacker (the attack build, with
// PEERLEARN_ATTACK=spec) on a task with the given aggregator, each on its
// own shard of MNIST; name tells the run's task and processes apart.
func startAttackRun(t *testing.T, name, aggregator string, n int, spec string) attackRun {
	t.Helper()
	peerBin, sigBin := binaries(t)
	evil := attackerBinary(t)
	dir := dataDir(t)
	s := task.DefaultSpec()
	s.Name, s.Aggregator = "e2e-attack-"+name, aggregator
	s.LocalEpochs, s.LocalSteps, s.PeriodMS = 0, 5, 1000
	s.Partition = task.Partition{Parts: n + 1, Seed: 1, Spec: "iid"}
	s.Init = task.Init{Mode: "common", Seed: 1}
	s.TargetAccuracy = 0.8
	b, err := s.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	tf := writeSpec(t, string(b))
	_, url := startServer(t, sigBin, "signalserver-"+name, tf)
	args := func(k int) []string {
		return []string{"-learn", "-task", tf, "-data", dir, "-shard", fmt.Sprintf("%d/%d", k, n+1),
			"-eval-every", "2s", "-eval-samples", "1000"}
	}
	// The attacker is there first: its models reach every honest peer's
	// first aggregation. Only the attack build reads PEERLEARN_ATTACK.
	r := attackRun{attacker: startPeer(t, evil, name+"-attacker", url, args(n), "PEERLEARN_ATTACK="+spec)}
	for i := range n {
		a := args(i)
		switch {
		case i == 0:
			// The default defence, end to end (the task's rule is the
			// default, a clipped one): the neighbourhood check and the
			// drift test's suspension, never moving (this test's checks
			// name peers by ID; a peer that left its place is netpeer's
			// TestPeerMovesWhenCaptured's to test).
		case i == 1:
			a = append(a, "-health=false") // the suspension alone
		default:
			a = append(a, "-health=false", "-suspend=false") // the rule alone
		}
		r.honest = append(r.honest, startPeer(t, peerBin, fmt.Sprintf("%s-honest%d", name, i), url, a))
	}
	return r
}

// attackFloor is what every honest peer's accuracy must reach under the
// default rule with the attacker among its neighbours: far under what
// they reach (measured on two shared, loaded cores: every honest peer
// above 0.8 within 5 to 10 s, in two runs), far over what the attack
// leaves of an undefended peer (plain fedlay: 0.1-0.4).
const attackFloor = 0.5

// honestStatuses reads the honest peers' statuses; nil entries for
// those that did not answer.
func (r attackRun) honestStatuses() []*Status {
	out := make([]*Status, len(r.honest))
	for i, p := range r.honest {
		if s, err := fetchStatus(p.Status); err == nil && s.Learn != nil {
			out[i] = &s
		}
	}
	return out
}

func (r attackRun) stop(t *testing.T) {
	stopAll(t, append(slices.Clone(r.honest), r.attacker))
}

// TestE2EAttackClippedAndDropped runs five honest `peerlearn peer`
// processes with one attacker process (built with -tags attack) sending
// its models sign-flipped and ten times too large, claiming 2^40
// samples, under the default rule, "clipped-fedlay", and checks the
// defence's mechanism: every honest overlay neighbour of the attacker
// names it on /status as the offender whose models were clipped (or
// refused) and whose claims were bounded; at least one of them stops
// exchanging models with it once its reputation falls, closes its
// connection, which stays closed (rtc.Manager.Deny, counted in its
// transport's Denied), and logs it; no honest peer is dropped; and the
// honest peers still learn (each at attackFloor or more). Honest peer 0
// runs the default defence: its /status carries the neighbourhood
// check's state, counted over its rounds, and the suspension's counts;
// honest peer 1 runs -health=false (the suspension only), the others
// -health=false -suspend=false (the rule alone): the flags are honoured.
//
// What needs many runs or a clean machine is asked on virtual time: that
// the attack wrecks undefended peers and that the defence keeps them
// within a few points of the no-attack accuracy (sim/scenario's
// TestByzantineQuick, which drops this test's former plain-fedlay
// control run), and that reputation drops a repeat offender (this
// package's TestLearnerDropsRepeatOffender). It asked that every honest
// neighbour drop the attacker within 60 s: CI missed that on one
// neighbour in one run of four.
func TestE2EAttackClippedAndDropped(t *testing.T) {
	parallel(t)
	const n = 5
	r := startAttackRun(t, "signflip", task.DefaultSpec().Aggregator, n, attackSpec)
	defer r.stop(t)
	t0 := time.Now()
	var last []*Status
	pollUntil(t, 120*time.Second, time.Second, func() (bool, string) {
		last = r.honestStatuses()
		droppers := 0
		for i, s := range last {
			switch {
			case s == nil || s.Learn.Evals == 0:
				return false, fmt.Sprintf("honest%d: no evaluation yet", i)
			case s.Learn.Accuracy < attackFloor:
				return false, fmt.Sprintf("honest%d: accuracy %.3f", i, s.Learn.Accuracy)
			case i == 0 && (s.Learn.Health == nil || s.Learn.Health.Neighbours < 1):
				return false, fmt.Sprintf("honest0 runs the check: no round that scored a neighbour yet (%+v)", s.Learn.Health)
			case droppedBy(s, r.attacker.ID):
				droppers++
			case slices.Contains(s.Neighbors, r.attacker.ID) && offender(s, r.attacker.ID) == nil:
				return false, fmt.Sprintf("honest%d: a neighbour of the attacker that names no offender (%+v)", i, s.Learn.Offenders)
			}
		}
		if droppers == 0 {
			return false, "no honest peer dropped the attacker"
		}
		return true, ""
	})
	t.Logf("after %v: every honest peer at %.2f or more, the attacker %s named by its neighbours and dropped by at least one",
		time.Since(t0).Round(time.Second), attackFloor, r.attacker.ID[:8])
	for i, s := range last {
		h := s.Learn.Health
		switch {
		case i == 0 && (h == nil || h.Rounds < 1):
			t.Errorf("honest0 runs the check by default: /status health %+v, want its rounds counted", h)
		case i == 0:
			t.Logf("honest0 health: %+v", *h)
		case h != nil:
			t.Errorf("honest%d runs -health=false but shows %+v", i, *h)
		}
		switch sp := s.Learn.Suspension; {
		case i <= 1 && sp == nil:
			t.Errorf("honest%d runs the suspension by default: none on /status", i)
		case i <= 1:
			t.Logf("honest%d suspension: %+v", i, *sp)
		case sp != nil:
			t.Errorf("honest%d runs -suspend=false but shows %+v", i, *sp)
		}
	}
	for i, s := range last {
		l := s.Learn
		for _, o := range l.Offenders {
			if o.ID != r.attacker.ID && o.DroppedS > 0 {
				t.Errorf("honest%d dropped the honest %s: %+v", i, o.ID[:8], o)
			}
		}
		off := offender(s, r.attacker.ID)
		if off == nil {
			t.Logf("honest%d %s: accuracy %.3f, not a neighbour of the attacker, names no offender", i, s.ID[:8], l.Accuracy)
			continue
		}
		t.Logf("honest%d %s: accuracy %.3f, %d clipped, %d bounded, refused %v; attacker: %d clipped, refused %v, reputation %.2f, dropped for %.0f s more",
			i, s.ID[:8], l.Accuracy, l.ModelsClipped, l.ModelsBounded, l.ModelsRefused, off.Clipped, off.Refused, off.Reputation, off.DroppedS)
		refused := 0
		for _, c := range off.Refused {
			refused += c
		}
		if off.Clipped+refused < 1 || l.ModelsClipped < off.Clipped || l.ModelsBounded < 1 {
			t.Errorf("honest%d: attacker clipped %d, refused %d, in all %d clipped, %d bounded: want its models clipped or refused and its claims bounded",
				i, off.Clipped, refused, l.ModelsClipped, l.ModelsBounded)
		}
		if off.DroppedS > 0 && (l.NeighborsDropped < 1 || off.Reputation >= aggregate.DefaultReputationConfig().DropBelow) {
			t.Errorf("honest%d dropped the attacker with %d drops counted, reputation %.2f", i, l.NeighborsDropped, off.Reputation)
		}
	}
	// The link goes with the model exchange: a dropper has no open
	// connection to the attacker and counts the denial, and for 3 s more
	// (the attacker keeps offering, the overlay keeps trying to reach
	// its ring neighbour) still none, at every look.
	t1 := time.Now()
	looks := 0
	pollUntil(t, 30*time.Second, 500*time.Millisecond, func() (bool, string) {
		looks++
		droppers := 0
		for i, s := range r.honestStatuses() {
			if s == nil || !droppedBy(s, r.attacker.ID) {
				continue
			}
			droppers++
			if slices.Contains(s.Connections, r.attacker.ID) {
				t.Fatalf("honest%d dropped the attacker but has a connection to it (look %d)", i, looks)
			}
			if s.RTC.Denied < 1 {
				t.Fatalf("honest%d dropped the attacker but its transport counts no denial", i)
			}
		}
		return droppers > 0 && time.Since(t1) >= 3*time.Second, "no honest peer reports the attacker dropped"
	})
	var logged bool
	for _, p := range r.honest {
		b, _ := os.ReadFile(p.Log)
		logged = logged || strings.Contains(string(b), "stopped exchanging models with it and closed its link")
	}
	if !logged {
		t.Errorf("no honest peer logged dropping the attacker")
	}
}

// offender is s's record of id, or nil.
func offender(s *Status, id string) *Offender {
	for k := range s.Learn.Offenders {
		if o := &s.Learn.Offenders[k]; o.ID == id {
			return o
		}
	}
	return nil
}

// droppedBy reports whether s says it stopped exchanging models with id.
func droppedBy(s *Status, id string) bool {
	for _, o := range s.Learn.Offenders {
		if o.ID == id && o.DroppedS > 0 {
			return true
		}
	}
	return false
}
