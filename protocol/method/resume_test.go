package method

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/protocol/evalreq"
	"github.com/peerlearn/peerlearn/protocol/gossip"
	"github.com/peerlearn/peerlearn/protocol/plexus"
	"github.com/peerlearn/peerlearn/protocol/selection"
	"github.com/peerlearn/peerlearn/types/ident"
)

// resumable builds the named core of peer id (peer 3 - id its only
// peer) from initial, with max_rounds maxRounds.
func resumable(t *testing.T, name string, id byte, initial []float32, maxRounds int) Resumable {
	t.Helper()
	var c Resumable
	var err error
	switch name {
	case "gossip":
		c, err = NewGossip(gossip.Config{ID: pid(id), Arch: "t", NumParams: 2, Period: 2}, rand.New(rand.NewPCG(1, uint64(id))), initial, maxRounds)
	case "dpsgd":
		c, err = NewDPSGD(gossip.RoundConfig{ID: pid(id), Arch: "t", NumParams: 2, Timeout: 5, MaxRounds: maxRounds}, initial)
	case "pens":
		c, err = NewPENS(PENSConfig{ID: pid(id), Arch: "t", NumParams: 2, Policy: selection.DefaultConfig(selection.KindLocal),
			Timeout: 5, MaxRounds: maxRounds, Responder: evalreq.DefaultResponderConfig(), AnswerBurst: 1}, initial)
	case "plexus":
		pc := plexus.DefaultConfig()
		pc.ID, pc.Bandwidth, pc.Arch, pc.NumParams, pc.Rounds = pid(id), 1, "t", 2, uint64(maxRounds)
		c, err = NewPlexus(PlexusConfig{Peer: pc, DigestEvery: 2, Settle: 3, MaxMembers: 8}, initial)
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// pair runs cores a and b (each the other's only peer) for at most
// ticks ticks, training every model each asks for at once (+1 on every
// parameter), until stop says so; it returns the trainings each ran.
func pair(t *testing.T, a, b Core, ticks int, stop func() bool) (ta, tb int) {
	t.Helper()
	cs, counts := [2]Core{a, b}, [2]*int{&ta, &tb}
	ids := [2]ident.Peer{pid(1), pid(2)}
	for i, c := range cs {
		if err := c.SetPeers([]ident.Peer{ids[1-i]}); err != nil {
			t.Fatal(err)
		}
	}
	for range ticks { // bounded: the callers check where it ended
		for i, c := range cs {
			c.Tick()
			// A few Readys a tick: a core training alone (PENS's Local
			// policy) asks for its next training as it reports one.
			for k := 0; k < 4 && c.HasReady(); k++ {
				rd := c.Ready()
				for _, s := range rd.Sends {
					// A refusal (a stale or late model) is the core's
					// business; the counts below are what is checked.
					_ = cs[1-i].Step(ids[i], s.Header, s.Params)
				}
				if rd.Train != nil {
					p := rd.Train.Params
					for j := range p {
						p[j]++
					}
					*counts[i]++
					if err := c.Trained(p, 10); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		if stop() {
			return
		}
	}
	return
}

// After a restart the round count goes on from the kept Progress, and
// max_rounds counts the trainings before and after it: a core stopped
// after some rounds and resumed (a fresh core from its model) trains
// max_rounds in all, never more, and its Status's round never goes back.
func TestResumeContinuesRounds(t *testing.T) {
	const max = 8
	for _, name := range []string{"gossip", "dpsgd", "pens"} {
		t.Run(name, func(t *testing.T) {
			a, b := resumable(t, name, 1, []float32{0, 0}, max), resumable(t, name, 2, []float32{1, 1}, 0)
			before, _ := pair(t, a, b, 500, func() bool { return a.Progress().Round >= 3 })
			pr, st := a.Progress(), a.Status()
			if pr.Round < 3 || st.Round < 2 {
				t.Fatalf("before the restart: progress %+v, status round %d, %d trainings", pr, st.Round, before)
			}
			if name == "gossip" && pr.Age == 0 {
				t.Fatalf("a gossip model trained %d times has age 0", before)
			}
			// The restart: a fresh core from the last trained model.
			c := resumable(t, name, 1, slices.Clone(a.Model()), max)
			if err := c.Resume(pr); err != nil {
				t.Fatal(err)
			}
			if got := c.Progress(); got != pr {
				t.Fatalf("resumed at %+v, progress %+v", pr, got)
			}
			if r := c.Status().Round; r < st.Round {
				t.Fatalf("status round %d after the resume, %d before", r, st.Round)
			}
			after, _ := pair(t, c, b, 2000, func() bool {
				if r := c.Status().Round; r < st.Round {
					t.Fatalf("status round %d after the resume, %d before", r, st.Round)
				}
				return c.Status().Role == "done"
			})
			got := c.Progress().Round
			if c.Status().Role != "done" || got != max || after < 1 {
				t.Fatalf("after the resume: %d trainings, progress %+v, %+v", after, c.Progress(), c.Status())
			}
			// D-PSGD may skip rounds catching up with a neighbour
			// ahead; the others train once a round.
			if total := before + after; total > max || (name != "dpsgd" && total != max) {
				t.Errorf("%d trainings before the restart, %d after: %d in all, max_rounds %d", before, after, total, max)
			}
			t.Logf("%s: resumed at %+v (%d trainings), done at round %d after %d more", name, pr, before, got, after)
		})
	}
}

// A peer that had trained max_rounds is done after the restart: it asks
// for no training, whatever arrives.
func TestResumeAtMaxRoundsIsDone(t *testing.T) {
	const max = 4
	for _, name := range []string{"gossip", "dpsgd", "pens", "plexus"} {
		t.Run(name, func(t *testing.T) {
			c := resumable(t, name, 1, []float32{0, 0}, max)
			if err := c.Resume(Progress{Round: max}); err != nil {
				t.Fatal(err)
			}
			if st := c.Status(); st.Role != "done" || st.Round < max-1 {
				t.Fatalf("resumed at max_rounds %d: %+v", max, st)
			}
			b := resumable(t, name, 2, []float32{1, 1}, max) // Plexus: b runs the task's rounds from 1
			trained, _ := pair(t, c, b, 100, func() bool { return false })
			if trained != 0 || c.Status().Role != "done" {
				t.Fatalf("resumed at max_rounds: %d trainings, %+v", trained, c.Status())
			}
		})
	}
}

// A Progress no peer can have reached is refused with a clear error and
// the core left as built; so is a resume of a core that has started.
func TestResumeRefuses(t *testing.T) {
	for _, name := range []string{"gossip", "dpsgd", "pens", "plexus"} {
		t.Run(name, func(t *testing.T) {
			bad := []struct {
				max  int
				pr   Progress
				want string
			}{
				{5, Progress{Round: -1}, "round -1"},
				{5, Progress{Round: 6}, "max_rounds 5"},
				{0, Progress{Round: maxResumeRound + 1}, "want 0 to"},
				{0, Progress{Round: 2, Age: gossip.MaxAge + 1}, "age"},
			}
			if name != "gossip" {
				bad = append(bad, struct {
					max  int
					pr   Progress
					want string
				}{0, Progress{Round: 2, Age: 7}, "without ages"})
			}
			for _, tc := range bad {
				c := resumable(t, name, 1, []float32{0, 0}, tc.max)
				err := c.Resume(tc.pr)
				if !errors.Is(err, ErrResume) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("max_rounds %d, %+v: %v, want ErrResume saying %q", tc.max, tc.pr, err, tc.want)
				}
				if got := c.Progress(); got.Round != 0 {
					t.Errorf("a refused resume left progress %+v", got)
				}
			}
			// Started: a core that has run is not resumed over.
			c, b := resumable(t, name, 1, []float32{0, 0}, 0), resumable(t, name, 2, []float32{1, 1}, 0)
			pair(t, c, b, 20, func() bool { return false })
			before := c.Progress()
			if err := c.Resume(Progress{Round: 3}); !errors.Is(err, ErrResume) || c.Progress() != before {
				t.Errorf("resume of a started core: %v, progress %+v (was %+v)", err, c.Progress(), before)
			}
		})
	}
}

// A Plexus peer resumed in the middle of a task joins the running
// rounds (it does not start round 1 again: that would run a second
// round 1 beside the task's), its round does not go below the one it
// resumed at, and the task still ends, everyone done.
func TestPlexusResumeJoinsRunningRounds(t *testing.T) {
	w := newPlexusNet(t, 8, 12)
	now := 0
	for range 400 {
		w.run(1, &now)
		if w.cores[0].Progress().Round >= 3 && !w.cores[0].busy {
			break
		}
	}
	pr := w.cores[0].Progress()
	if pr.Round < 3 {
		t.Fatalf("core 0 took part in no round 3 in 400 ticks: %+v", w.cores[0].Status())
	}
	c, err := NewPlexus(w.cores[0].cfg, []float32{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Resume(pr); err != nil {
		t.Fatal(err)
	}
	if err := c.SetPeers(w.cores[0].peers); err != nil {
		t.Fatal(err)
	}
	w.cores[0] = c
	w.jobs = slices.DeleteFunc(w.jobs, func(j netJob) bool { return j.i == 0 }) // the old life's trainings
	for range 600 {
		w.run(1, &now)
		if c.p.Started() {
			t.Fatal("the resumed core started round 1")
		}
		if r := c.Status().Round; r < pr.Round {
			t.Fatalf("status round %d after resuming at %d", r, pr.Round)
		}
	}
	for i, x := range w.cores {
		if st := x.Status(); st.Role != "done" {
			t.Errorf("core %d: %+v", i, st)
		}
	}
	if c.Progress().Round <= pr.Round {
		t.Errorf("the resumed core took part in no round after %d: %+v", pr.Round, c.Status())
	}
}

// A PENS core resumed past step 1 runs step 1 again (its neighbour
// counts were not kept): its first round polls candidates, where a core
// at that round without the history would choose from nothing.
func TestPENSResumeRerunsStep1(t *testing.T) {
	pc := selection.DefaultConfig(selection.KindPENS)
	resumeAt := pc.Step1Rounds + 5
	c, err := NewPENS(PENSConfig{ID: pid(1), Arch: "t", NumParams: 2, Policy: pc, Timeout: 5, Responder: evalreq.DefaultResponderConfig(), AnswerBurst: 1}, []float32{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Resume(Progress{Round: resumeAt}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetPeers([]ident.Peer{pid(2), pid(3)}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		c.Tick()
	}
	if c.phase != phPolling || c.polRound() != 1 || c.Status().Round != resumeAt {
		t.Fatalf("resumed at round %d past step 1 (%d rounds): phase %s, policy round %d, round %d; want polling in the policy's round 1",
			resumeAt, pc.Step1Rounds, phaseNames[c.phase], c.polRound(), c.Status().Round)
	}
}
