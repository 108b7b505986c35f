package browser

import (
	"fmt"
	"testing"
	"time"
)

// resumeMethodRounds is gossipResumeSpec's max_rounds.
const resumeMethodRounds = 8

// gossipResumeSpec is a Gossip Learning task of resumeMethodRounds
// rounds: a model goes to a neighbour every 2 s and each arrival is
// trained once, so a tab and a native peer train a round every 2 s or
// so each.
var gossipResumeSpec = fmt.Sprintf(`{"aggregator":"mean","arch":"mlp","batch":32,"dataset":"mnist","init":{"gain":0,"mode":"common","seed":7},`+
	`"local_epochs":0,"local_steps":10,"max_peers":100,"max_rounds":%d,"method":"gossip","name":"browser-resume-gossip",`+
	`"optimizer":{"lr":0.05,"momentum":0.9,"name":"sgd","weight_decay":0},"partition":{"parts":6,"seed":1,"spec":"dirichlet:1"},`+
	`"period_ms":2000,"selection":{"k":0,"policy":"overlay"},"spaces":3,"target_accuracy":0.85,"tiers":false,"version":2}`, resumeMethodRounds)

func (s tabSession) methodRound() int {
	if s.Learn == nil || s.Learn.Method == nil {
		return -1
	}
	return s.Learn.Method.Round
}

// TestBrowserResumeMethod: a tab of a Gossip task (a method core, not
// FedLay's MEP) keeps its core's round in IndexedDB; after a reload its
// round count goes on from the saved one (never back to 0) and the task's
// max_rounds counts the rounds before and after the reload: it is done at
// exactly max_rounds trainings. Reloaded once done, it is done at once.
func TestBrowserResumeMethod(t *testing.T) {
	parallel(t)
	bin := chromium(t)
	data := dataDir(t)
	peerBin, sigBin, wasmDir := build(t, data)
	srv := startTaskServer(t, sigBin, wasmDir, gossipResumeSpec)
	startPeer(t, peerBin, "native0", srv.sigURL, "-task", srv.taskFile, "-data", data, "-shard", "0/6")
	tb := joinTab(t, bin, "tab", srv, "shard=1/6&evalEvery=2000&evalSamples=500", nil)

	var before tabSession
	waitUntil(t, "the tab keeps a session of 2 gossip rounds", 120*time.Second, 300*time.Millisecond, func() string {
		s, err := readSession(tb)
		if err != nil {
			return err.Error()
		}
		before = s
		if len(s.Records) != 1 || s.Records[0].MethodRound < 2 {
			return fmt.Sprintf("records %+v, method round %d", s.Records, s.methodRound())
		}
		return ""
	})
	saved := before.Records[0]
	if saved.MethodRound >= resumeMethodRounds {
		t.Fatalf("the tab was done (round %d of %d) before the reload: no resume to check", saved.MethodRound, resumeMethodRounds)
	}
	reloadTab(t, tb)
	var after tabSession
	waitUntil(t, "the reloaded tab done", 180*time.Second, 300*time.Millisecond, func() string {
		s, err := readSession(tb)
		if err != nil {
			return err.Error()
		}
		after = s
		if r := s.methodRound(); r >= 0 && r < saved.MethodRound {
			t.Fatalf("after the reload the gossip core is at round %d, below the saved %d: the count restarted", r, saved.MethodRound)
		}
		if r := s.rounds(); r >= 0 && r < saved.Round {
			t.Fatalf("after the reload the tab counts %d rounds, below the saved %d", r, saved.Round)
		}
		if s.Learn == nil || s.Learn.Method == nil || s.Learn.Method.Role != "done" {
			return fmt.Sprintf("restored %+v, method round %d, rounds %d", s.Restored, s.methodRound(), s.rounds())
		}
		return ""
	})
	if after.ID != before.ID || after.Restored == nil || after.Restored.Round != saved.Round {
		t.Fatalf("after the reload: peer %.8s (was %.8s), restored %+v (saved round %d)", after.ID, before.ID, after.Restored, saved.Round)
	}
	// Done at max_rounds in all: a core that counted from 0 again would
	// train max_rounds more.
	if m := after.Learn.Method; m.Round != resumeMethodRounds || m.MaxRounds != resumeMethodRounds || after.rounds() != resumeMethodRounds {
		t.Fatalf("done at gossip round %d (max_rounds %d), %d trainings; want %d, resumed at round %d",
			m.Round, m.MaxRounds, after.rounds(), resumeMethodRounds, saved.MethodRound)
	}
	t.Logf("saved at gossip round %d (%d trainings), reloaded, done at round %d", saved.MethodRound, saved.Round, after.methodRound())

	// Reloaded once done: done at once, training nothing more.
	waitUntil(t, "the done session saved", 60*time.Second, 300*time.Millisecond, func() string {
		s, err := readSession(tb)
		if err == nil && len(s.Records) == 1 && s.Records[0].MethodRound == resumeMethodRounds {
			return ""
		}
		return fmt.Sprintf("records %+v %v", s.Records, err)
	})
	reloadTab(t, tb)
	var done tabSession
	waitUntil(t, "the reloaded done tab's core", 90*time.Second, 300*time.Millisecond, func() string {
		s, err := readSession(tb)
		if err != nil {
			return err.Error()
		}
		done = s
		if s.Restored == nil || s.Learn == nil || s.Learn.Method == nil {
			return fmt.Sprintf("restored %+v, state %s", s.Restored, s.State)
		}
		return ""
	})
	// Its core is built done (method.Resumable.Resume at max_rounds; that
	// a done core trains none of the models that arrive is
	// TestResumeAtMaxRoundsIsDone's). Waiting for models here would wait
	// on the native peer's rtc, which answers two offers a peer in 5
	// minutes through the signalling server (this is the tab's third
	// connection).
	if m := done.Learn.Method; m.Role != "done" || m.Round != resumeMethodRounds || done.rounds() != resumeMethodRounds {
		t.Fatalf("reloaded after max_rounds: %+v, %d trainings", *m, done.rounds())
	}
	t.Logf("reloaded when done: role %s at round %d, %d trainings", done.Learn.Method.Role, done.methodRound(), done.rounds())
}
