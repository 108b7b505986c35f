//go:build !js

package netpeer

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/internal/proctest"
	"github.com/peerlearn/peerlearn/protocol/task"
)

var (
	attackOnce sync.Once
	attackBin  string
	attackErr  error
)

// attackerBinary builds cmd/peerlearn with -tags attack (netpeer's
// attack.go: PEERLEARN_ATTACK rewrites the models the peer sends) next to
// the plain binaries.
func attackerBinary(t *testing.T) string {
	t.Helper()
	binaries(t) // makes binDir, skips with -short
	attackOnce.Do(func() {
		attackBin = filepath.Join(binDir, "peerlearn-attack")
		out, err := exec.Command("go", "build", "-tags", "attack", "-o", attackBin, "../../cmd/peerlearn").CombinedOutput()
		if err != nil {
			attackErr = fmt.Errorf("go build -tags attack: %v\n%s", err, out)
		}
	})
	if attackErr != nil {
		t.Fatal(attackErr)
	}
	return attackBin
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
// processes (the plain binary) and one attacker (the attack build) on a
// task with the given aggregator, each on its own shard of MNIST.
func startAttackRun(t *testing.T, aggregator string, n int) attackRun {
	t.Helper()
	peerBin, sigBin := binaries(t)
	evil := attackerBinary(t)
	dir := dataDir(t)
	s := task.DefaultSpec()
	s.Name, s.Aggregator = "e2e-attack-"+aggregator, aggregator
	s.LocalEpochs, s.LocalSteps, s.PeriodMS = 0, 5, 1000
	s.Partition = task.Partition{Parts: n + 1, Seed: 1, Spec: "iid"}
	s.Init = task.Init{Mode: "common", Seed: 1}
	s.TargetAccuracy = attackTarget
	b, err := s.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	tf := filepath.Join(t.TempDir(), "task.json")
	if err := os.WriteFile(tf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	addr := proctest.FreeAddr(t)
	proctest.Start(t, "signalserver-"+aggregator, sigBin, []string{"-addr", addr, "-no-web", "-task", tf, "-admission-key", admissionKeyFile(tf)}, nil)
	proctest.WaitTCP(t, addr)
	url := "ws://" + addr + "/signal"
	args := func(k int) []string {
		return []string{"-learn", "-task", tf, "-data", dir, "-shard", fmt.Sprintf("%d/%d", k, n+1),
			"-eval-every", "2s", "-eval-samples", "1000"}
	}
	// The attacker is there first: its models reach every honest peer's
	// first aggregation. The plain binary ignores PEERLEARN_ATTACK; only
	// the attack build reads it.
	t.Setenv("PEERLEARN_ATTACK", attackSpec)
	r := attackRun{attacker: startPeer(t, evil, aggregator+"-attacker", url, args(n)...)}
	for i := range n {
		r.honest = append(r.honest, startPeer(t, peerBin, fmt.Sprintf("%s-honest%d", aggregator, i), url, args(i)...))
	}
	return r
}

// attackTarget is what every honest peer must reach on its test sample
// under the default rule with the attacker among its neighbours, within
// 60 s. Measured on two shared, loaded cores: six honest peers (the
// attack build with scale=1 as the sixth) were all above 0.83 after 9 s
// and above 0.9 after 21 s; with the attacker under clipped-fedlay every
// honest peer reached 0.8 within 5 to 10 s in two runs.
const attackTarget = 0.8

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
	for _, p := range append(slices.Clone(r.honest), r.attacker) {
		p.Stop(t)
	}
}

// TestE2EAttackClippedAndDropped runs honest `peerlearn peer` processes
// with one attacker process (built with -tags attack) sending its models
// sign-flipped and a hundred times too large, claiming 2^40 samples.
//
// Control, plain "fedlay": the attacker's model enters the averages of
// the honest peers that exchange with it at full weight, and wrecks them.
// Default rule, "clipped-fedlay": every honest peer reaches the target;
// each one's /status names the attacker as the offender whose models
// were clipped (and its claims bounded), and the honest peers stop
// exchanging models with it once its reputation falls and close its
// connection, which stays closed (rtc.Manager.Deny), counted in their
// transport's Denied.
func TestE2EAttackClippedAndDropped(t *testing.T) {
	// controlCeiling: in the undefended run some honest peer falls under
	// it in the window's second half (near chance, 0.1-0.4, in the runs
	// measured), far under attackTarget.
	const controlCeiling = 0.5
	const n = 5
	t.Run("control-fedlay", func(t *testing.T) {
		r := startAttackRun(t, "fedlay", n)
		defer r.stop(t)
		t0 := time.Now()
		var best float64
		worst := 1.0 // the lowest honest accuracy in the window's second half
		var evals int
		var accs []float64
		const window = 25 * time.Second
		for time.Since(t0) < window {
			time.Sleep(time.Second)
			accs = accs[:0]
			late := time.Since(t0) > window/2
			for _, s := range r.honestStatuses() {
				if s != nil && s.Learn.Evals > 0 {
					best = max(best, s.Learn.Accuracy)
					evals++
					accs = append(accs, s.Learn.Accuracy)
					if late {
						worst = min(worst, s.Learn.Accuracy)
					}
				}
			}
			t.Logf("%v: %.3f", time.Since(t0).Round(time.Second), accs)
		}
		t.Logf("plain fedlay with the attacker: best honest accuracy %.3f in %v (%d evaluations)", best, time.Since(t0).Round(time.Second), evals)
		if evals == 0 || len(accs) < n {
			t.Fatalf("%d evaluations, %d honest peers evaluated at the end: the control shows nothing", evals, len(accs))
		}
		// The attacker wrecks the honest peers that aggregate its models
		// (which ones depends on the rings and the exchange schedule;
		// measured: some end near chance, others recover between its
		// models). So the control asks that some honest peer be wrecked
		// well after training started, where the defended run below asks
		// that every honest peer reach the target.
		if worst >= controlCeiling {
			t.Errorf("under plain fedlay no honest peer fell below %.2f after %v (lowest %.3f): the attack does too little damage, the defended run proves nothing", controlCeiling, window/2, worst)
		}
	})
	t.Run("clipped-fedlay", func(t *testing.T) {
		r := startAttackRun(t, task.DefaultSpec().Aggregator, n)
		defer r.stop(t)
		t0 := time.Now()
		reached := make([]time.Duration, n)
		var last []*Status
		for {
			time.Sleep(time.Second)
			last = r.honestStatuses()
			var accs []float64
			for _, s := range last {
				if s != nil {
					accs = append(accs, s.Learn.Accuracy)
				}
			}
			t.Logf("%v: %.3f", time.Since(t0).Round(time.Second), accs)
			done := true
			for i, s := range last {
				if reached[i] == 0 && s != nil && s.Learn.Evals > 0 && s.Learn.Accuracy >= attackTarget {
					reached[i] = time.Since(t0)
				}
				done = done && reached[i] > 0
			}
			// Wait also until every honest overlay neighbour of the
			// attacker has dropped it (three far-out rounds each), and at
			// least two have (with six peers on five rings a peer is not
			// always adjacent to a given other).
			droppers := 0
			for _, s := range last {
				switch {
				case s != nil && droppedBy(s, r.attacker.ID):
					droppers++
				case s == nil || slices.Contains(s.Neighbors, r.attacker.ID):
					done = false
				}
			}
			done = done && droppers >= 2
			if done {
				break
			}
			if time.Since(t0) > 60*time.Second {
				for i, s := range last {
					if s != nil {
						t.Logf("honest%d %s: accuracy %.3f, %+v", i, s.ID[:8], s.Learn.Accuracy, s.Learn.Offenders)
					}
				}
				t.Fatalf("after %v: target %.2f reached after %v (0: not); attacker not dropped by all its honest neighbours or by fewer than 2", time.Since(t0).Round(time.Second), attackTarget, reached)
			}
		}
		t.Logf("every honest peer reached %.2f (after %v); its overlay neighbours dropped the attacker %s", attackTarget, reached, r.attacker.ID[:8])
		for i, s := range last {
			l := s.Learn
			var off *Offender
			for k := range l.Offenders {
				o := &l.Offenders[k]
				if o.ID == r.attacker.ID {
					off = o
				} else if o.DroppedS > 0 {
					t.Errorf("honest%d dropped the honest %s: %+v", i, o.ID[:8], *o)
				}
			}
			if off == nil {
				if slices.Contains(s.Neighbors, r.attacker.ID) {
					t.Errorf("honest%d has the attacker as a neighbour but does not name it: %+v", i, l.Offenders)
				} else {
					t.Logf("honest%d %s: not a neighbour of the attacker, names no offender", i, s.ID[:8])
				}
				continue
			}
			t.Logf("honest%d %s: %d clipped, %d bounded, refused %v; attacker: %d clipped, refused %v, reputation %.2f, dropped for %.0f s more",
				i, s.ID[:8], l.ModelsClipped, l.ModelsBounded, l.ModelsRefused, off.Clipped, off.Refused, off.Reputation, off.DroppedS)
			if off.Clipped < 1 || l.ModelsClipped < off.Clipped || l.ModelsBounded < 1 {
				t.Errorf("honest%d: attacker clipped %d, in all %d clipped, %d bounded: want its models clipped and its claims bounded", i, off.Clipped, l.ModelsClipped, l.ModelsBounded)
			}
			if off.DroppedS > 0 && (l.NeighborsDropped < 1 || off.Reputation >= aggregate.DefaultReputationConfig().DropBelow) {
				t.Errorf("honest%d dropped the attacker with %d drops counted, reputation %.2f", i, l.NeighborsDropped, off.Reputation)
			}
		}
		// The link goes with the model exchange: a dropper has no open
		// connection to the attacker, counts the denial, and a few
		// seconds later (the attacker keeps offering, the overlay keeps
		// trying to reach its ring neighbour) still none.
		time.Sleep(3 * time.Second)
		linkless := 0
		for i, s := range r.honestStatuses() {
			if s == nil || !droppedBy(s, r.attacker.ID) {
				continue
			}
			linkless++
			t.Logf("honest%d %s: connections %d, rtc denied %d, bans %d, banned refused %d", i, s.ID[:8], len(s.Connections), s.RTC.Denied, s.RTC.Bans, s.RTC.BannedRefused)
			if slices.Contains(s.Connections, r.attacker.ID) {
				t.Errorf("honest%d dropped the attacker but still has a connection to it", i)
			}
			if s.RTC.Denied < 1 {
				t.Errorf("honest%d dropped the attacker but its transport counts no denial", i)
			}
		}
		if linkless < 2 {
			t.Errorf("%d honest peers still report the attacker dropped 3 s later: want at least 2", linkless)
		}
		var logged bool
		for _, p := range r.honest {
			b, _ := os.ReadFile(p.Log)
			logged = logged || strings.Contains(string(b), "stopped exchanging models with it and closed its link")
		}
		if !logged {
			t.Errorf("no honest peer logged dropping the attacker")
		}
	})
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
