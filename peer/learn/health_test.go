package learn

import (
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/nn"

	"github.com/peerlearn/peerlearn/engine/health"
)

// healthOn switches the neighbourhood check on for every peer.
func healthOn(_ int, c *Config) {
	c.Aggregator = aggregate.SafeDefault
	c.Health = HealthConfig{On: true, Check: health.DefaultConfig().ForClasses(taskClasses)}
}

// oneClassLiars are peers 1, 3 and 9 of ringPlus(10), peer 2's
// neighbours but one: each sends a model that answers class 0 for
// everything (its output bias, the last taskClasses parameters, favours
// class 0 by far).
func oneClassLiars() map[int]func([]float32) []float32 {
	one := func(p []float32) []float32 {
		out := append([]float32(nil), p...)
		out[len(out)-taskClasses] += 50
		return out
	}
	return map[int]func([]float32) []float32{1: one, 3: one, 9: one}
}

// Peer 2 of ringPlus(10) hears peers 1, 3, 5 and 9; three of them (1, 3,
// 9) send a model that answers one class for everything, with maximal claims, so plain FedLay
// hands its neighbourhood to them. With the check on, peer 2 finds most
// of its neighbours disagreeing with its data, is Captured after
// Patience rounds, from then on aggregates only with the one it trusts
// (peer 5), and asks for a new placement at once and then at most every
// Cooldown alarming rounds. Without attack the same check leaves it
// healthy, and with the check off Health says so.
func TestHealthCapturedVictimKeepsLearning(t *testing.T) {
	tk := newTask(t, 10, 120, 4)
	liars := oneClassLiars()
	const rounds, victim = 20, 2
	accOf := func(p *Peer) float64 {
		ev, err := NewEvaluator(tk.arch)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ev.Evaluate(p.Published(), tk.test.X, tk.test.Y)
		if err != nil {
			return 0
		}
		return m.Accuracy
	}

	off := newPeers(t, tk, func(_ int, c *Config) { c.Aggregator = aggregate.SafeDefault })
	byzantineRounds(t, tk, off, liars, rounds)
	if _, ok := off[victim].Health(); ok {
		t.Errorf("Health reports a check that is off")
	}
	on := newPeers(t, tk, healthOn)
	byzantineRounds(t, tk, on, liars, rounds)
	calm := newPeers(t, tk, healthOn)
	byzantineRounds(t, tk, calm, nil, rounds)

	s, ok := on[victim].Health()
	t.Logf("victim: accuracy check off %.3f, on %.3f, no attack %.3f; status %+v", accOf(off[victim]), accOf(on[victim]), accOf(calm[victim]), s)
	if !ok || s.State != health.Captured || s.Captures < 1 {
		t.Fatalf("victim status %+v (ok %v): want captured", s, ok)
	}
	if s.Disagree != len(liars) || s.Neighbours != 4 {
		t.Errorf("victim's last round: %d of %d neighbours disagree, want the %d liars of 4", s.Disagree, s.Neighbours, len(liars))
	}
	cd := health.DefaultConfig().Cooldown
	if most := 1 + (s.Alarming-health.DefaultConfig().Patience)/cd; s.Replacements < 1 || s.Replacements > most {
		t.Errorf("victim asked for %d new placements in %d alarming rounds; want 1..%d (one at capture, then every %d)", s.Replacements, s.Alarming, most, cd)
	}
	if !on[victim].TakeReplace() || on[victim].TakeReplace() {
		t.Errorf("TakeReplace: want one pending request, then none")
	}
	// Captured, the victim aggregates only with its honest neighbour:
	// it learns what plain FedLay under the same attack does not.
	if a, b := accOf(on[victim]), accOf(off[victim]); a < 0.7 || a <= b {
		t.Errorf("victim accuracy with the check %.3f, without %.3f: want the check to keep it learning (>= 0.7)", a, b)
	}
	if cs, _ := calm[victim].Health(); cs.Captures != 0 || cs.Replacements != 0 {
		t.Errorf("without attack the victim's check says %+v: want no capture", cs)
	}
}

// scoringTrainer is an external backend that also evaluates parameter
// vectors (ParamsEvaluator), on a model of its own, counting the calls:
// a trainer worker's evalParams.
type scoringTrainer struct {
	*nn.Trainer
	score *nn.Model
	calls int
	gone  bool // answers ErrNotEvaluating, as a failed worker does
}

func (s *scoringTrainer) EvaluateParams(params, x []float32, y []int32) (nn.Metrics, error) {
	s.calls++
	if s.gone {
		return nn.Metrics{}, ErrNotEvaluating
	}
	if err := s.score.SetParams(params); err != nil {
		return nn.Metrics{}, err
	}
	return s.score.Evaluate(x, y, 0, nil)
}

// healthBackend switches the check on with an external trainer: a plain
// one, or a scoringTrainer (answering ErrNotEvaluating when gone),
// appended to *out.
func healthBackend(scoring, gone bool, out *[]*scoringTrainer) func(int, *Config) {
	return func(i int, c *Config) {
		healthOn(i, c)
		c.NewBackend = func(arch nn.Arch, opt nn.Optimizer) (nn.Backend, error) {
			m, err := nn.NewModel(arch)
			if err != nil {
				return nil, err
			}
			tr, err := nn.NewTrainer(m, opt)
			if err != nil || !scoring {
				return tr, err
			}
			s, err := nn.NewModel(arch)
			st := &scoringTrainer{Trainer: tr, score: s, gone: gone}
			*out = append(*out, st)
			return st, err
		}
	}
}

// With an external backend that can evaluate parameters the check scores
// there (a tab's worker, off the page's thread): every round's own model
// and every neighbour's, one call each, and nothing changes otherwise,
// the same verdicts, counters and models as the check scoring on its own
// model beside a plain external trainer (which cannot).
func TestHealthScoresOnTheBackend(t *testing.T) {
	tk := newTask(t, 10, 120, 4)
	liars := oneClassLiars()
	const rounds, victim = 6, 2
	var backends []*scoringTrainer
	own := newPeers(t, tk, healthBackend(false, false, nil))
	byzantineRounds(t, tk, own, liars, rounds)
	ext := newPeers(t, tk, healthBackend(true, false, &backends))
	byzantineRounds(t, tk, ext, liars, rounds)
	if len(backends) != len(ext) {
		t.Fatalf("%d scoring backends for %d peers", len(backends), len(ext))
	}
	for i := range ext {
		if _, liar := liars[i]; liar {
			continue
		}
		a, _ := own[i].Health()
		b, _ := ext[i].Health()
		if a != b {
			t.Errorf("peer %d: scoring on the backend %+v, on its own model %+v", i, b, a)
		}
		if !slices.Equal(own[i].Published(), ext[i].Published()) {
			t.Errorf("peer %d: the models differ", i)
		}
		// Each round after the first scores our model and each of the 4
		// neighbours' (ringPlus(10)).
		if want := (rounds - 1) * (1 + 4); backends[i].calls != want {
			t.Errorf("peer %d: %d evaluations on the backend, want %d", i, backends[i].calls, want)
		}
	}
	if s, _ := ext[victim].Health(); s.State != health.Captured {
		t.Errorf("victim: %+v, want captured (the check ran on the backend's scores)", s)
	}
}

// A backend that answers ErrNotEvaluating (a tab whose worker failed)
// is asked, and the check then scores on its own model: the same
// verdicts, counters and models as without such a backend.
func TestHealthScoresWhenTheBackendCannot(t *testing.T) {
	tk := newTask(t, 10, 120, 4)
	liars := oneClassLiars()
	const rounds = 6
	var backends []*scoringTrainer
	own := newPeers(t, tk, healthBackend(false, false, nil))
	byzantineRounds(t, tk, own, liars, rounds)
	gone := newPeers(t, tk, healthBackend(true, true, &backends))
	byzantineRounds(t, tk, gone, liars, rounds)
	for i := range gone {
		if _, liar := liars[i]; liar {
			continue
		}
		a, _ := own[i].Health()
		b, _ := gone[i].Health()
		if a != b || a.Rounds != rounds-1 {
			t.Errorf("peer %d: with a backend that cannot evaluate %+v, without %+v (want %d checked rounds)", i, b, a, rounds-1)
		}
		if backends[i].calls == 0 {
			t.Errorf("peer %d: the backend was never asked", i)
		}
	}
}
