package learn

import (
	"errors"
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/data"
)

// heldOut is the part of tk.test with the classes peer i trains on: a
// slice of "its own" data it never trains on.
func heldOut(tk task, i int) *data.Dataset {
	d := &data.Dataset{Name: "held-out", Shape: tk.test.Shape, Classes: tk.test.Classes}
	for k, y := range tk.test.Y {
		if c := int(y); c == i%taskClasses || c == (i+1)%taskClasses || c == (i+2)%taskClasses {
			d.X = append(d.X, tk.test.X[k*taskFeatures:(k+1)*taskFeatures]...)
			d.Y = append(d.Y, y)
		}
	}
	return d
}

// The sign-flipping liars of TestSyncByzantineNeighbours, this time
// honest for 10 rounds and attacking for the next 10 (early on, a
// flipped near-random model does no worse than an honest one, and no
// loss screen can tell them apart). Plain FedLay collapses; with the
// screen on, the liars' models do far worse on each honest peer's
// held-out data and are refused in every attacking round, honest models
// never, and accuracy holds.
func TestScreenRefusesBadModels(t *testing.T) {
	tk := newTask(t, 10, 120, 4)
	flip := func(p []float32) []float32 {
		out := make([]float32, len(p))
		for i, v := range p {
			out[i] = -v
		}
		return out
	}
	liars := map[int]func([]float32) []float32{0: flip, 5: flip}
	const rounds = 10
	run := func(screen bool) (float64, []*Peer) {
		peers := newPeers(t, tk, func(i int, c *Config) {
			c.Aggregator = "fedlay"
			if !screen {
				return
			}
			ev, err := NewEvaluator(tk.arch)
			if err != nil {
				t.Fatal(err)
			}
			hold := heldOut(tk, i)
			c.Screen = ScreenConfig{Factor: DefaultScreenFactor, Margin: DefaultScreenMargin,
				Loss: func(p []float32) (float64, error) {
					m, err := ev.Evaluate(p, hold.X, hold.Y)
					return m.Loss, err
				}}
		})
		byzantineRounds(t, tk, peers, nil, rounds)
		return byzantineRounds(t, tk, peers, liars, rounds), peers
	}
	plain, _ := run(false)
	acc, peers := run(true)
	t.Logf("honest mean accuracy after the attack: plain fedlay %.3f, with the screen %.3f", plain, acc)
	if plain > 0.5 || acc < 0.9 {
		t.Errorf("plain %.3f (want <= 0.5), screened %.3f (want >= 0.9)", plain, acc)
	}
	adj := ringPlus(len(peers))
	for i, p := range peers {
		if liars[i] != nil {
			continue
		}
		// One liar among the neighbours, refused in every attacking round.
		if s := p.Metrics().Refused; s.Screened != rounds || s.Total() != s.Screened {
			t.Errorf("peer %d refusals %+v, want %d screened", i, s, rounds)
		}
		for _, j := range adj[i] {
			if p.ShouldDrop(peerID(j)) != (liars[j] != nil) {
				t.Errorf("peer %d: ShouldDrop(%d) = %v", i, j, p.ShouldDrop(peerID(j)))
			}
		}
	}
}

// The pure step on hand-made losses: self 1, neighbours 3.5, 3.6, an
// error, 0.2; median of (0.2 1 3.5 3.6) is 1, limit 3*1+.5 = 3.5.
func TestScreen(t *testing.T) {
	loss := func(p []float32) (float64, error) {
		if p[0] < 0 {
			return 0, errors.New("cannot evaluate")
		}
		return float64(p[0]), nil
	}
	cfg := ScreenConfig{Loss: loss, Factor: 3, Margin: 0.5}
	c := func(b byte, v float32) aggregate.Contribution {
		return aggregate.Contribution{From: peerID(int(b)), Params: []float32{v}}
	}
	kept, refused := Screen(c(1, 1), []aggregate.Contribution{c(2, 3.5), c(3, 3.6), c(4, -1), c(5, 0.2)}, cfg)
	if len(kept) != 2 || kept[0] != 0 || kept[1] != 3 || len(refused) != 2 ||
		refused[0].Index != 1 || refused[1].Index != 2 || !errors.Is(refused[0].Err, ErrScreened) {
		t.Fatalf("kept %v refused %+v", kept, refused)
	}
	// No reference loss: keep everything.
	if kept, refused = Screen(c(1, -1), []aggregate.Contribution{c(2, 100)}, cfg); len(kept) != 1 || refused != nil {
		t.Fatalf("kept %v refused %+v", kept, refused)
	}
	if err := (ScreenConfig{Loss: loss, Factor: 1}).validate(); !errors.Is(err, ErrConfig) {
		t.Fatalf("factor 1: %v", err)
	}
}

// Screened runs the screen in front of its rule: the inner rule sees only
// the kept models, and its report comes back in positions of the input,
// with the screen's refusals merged in input order. RobustOf finds the
// robust rule behind it (what the lab's attackers read the checks from).
func TestScreened(t *testing.T) {
	loss := func(p []float32) (float64, error) { return math.Abs(float64(p[0])), nil }
	c := func(b byte, v float32) aggregate.Contribution {
		return aggregate.Contribution{From: peerID(int(b)), Params: []float32{v}, DataSize: 1}
	}
	// self 1; neighbours 1.2, 50, 1.1, a non-finite model (scored 1 here,
	// so the screen keeps it and the rule refuses it), 1.3: the lower
	// median of the closed neighbourhood's losses is 1.1, the limit 2.3,
	// and 50 is screened.
	nan := float32(math.NaN())
	others := []aggregate.Contribution{c(2, 1.2), c(3, 50), c(4, 1.1), c(5, nan), c(6, 1.3)}
	loss2 := func(p []float32) (float64, error) {
		if math.IsNaN(float64(p[0])) {
			return 1, nil
		}
		return loss(p)
	}
	rule, err := aggregate.New("mean")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, 1)
	rep, err := Screened{Inner: rule, Config: ScreenConfig{Loss: loss2, Factor: 2, Margin: 0.1}}.Aggregate(c(1, 1), others, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Refused) != 2 || rep.Refused[0].Index != 1 || !errors.Is(rep.Refused[0].Err, ErrScreened) ||
		rep.Refused[1].Index != 3 || errors.Is(rep.Refused[1].Err, ErrScreened) {
		t.Fatalf("refused %+v: want 1 (screened) then 3 (the rule's, mapped back)", rep.Refused)
	}
	if want := float32((1 + 1.2 + 1.1 + 1.3) / 4); math.Abs(float64(out[0]-want)) > 1e-6 {
		t.Fatalf("aggregate %v, want the mean of self and the kept finite models %v", out[0], want)
	}
	if _, ok := aggregate.RobustOf(Screened{Inner: rule}); ok {
		t.Fatal("RobustOf found a robust rule behind mean")
	}
	robust, err := aggregate.New("clipped-fedlay")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := aggregate.RobustOf(Screened{Inner: robust}); !ok {
		t.Fatal("RobustOf did not find clipped-fedlay behind the screen")
	}
}

// With LeaveOut the screened model is left out of the round as an
// uncharged Outlier (severity 0, below any reputation tolerance), not
// refused; the rule's own refusals stay refusals.
func TestScreenedLeaveOut(t *testing.T) {
	loss := func(p []float32) (float64, error) { return math.Abs(float64(p[0])), nil }
	c := func(b byte, v float32) aggregate.Contribution {
		return aggregate.Contribution{From: peerID(int(b)), Params: []float32{v}, DataSize: 1}
	}
	rule, err := aggregate.New("mean")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, 1)
	others := []aggregate.Contribution{c(2, 1.2), c(3, 50), c(4, 1.1)}
	rep, err := Screened{Inner: rule, Config: ScreenConfig{Loss: loss, Factor: 2, Margin: 0.1, LeaveOut: true}}.Aggregate(c(1, 1), others, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Refused) != 0 || len(rep.Outliers) != 1 || rep.Outliers[0].Index != 1 || rep.Outliers[0].Action != aggregate.OutlierLeftOut || rep.Outliers[0].Severity != 0 {
		t.Fatalf("refused %+v outliers %+v: want 1 left out, uncharged", rep.Refused, rep.Outliers)
	}
	if want := float32((1 + 1.2 + 1.1) / 3); math.Abs(float64(out[0]-want)) > 1e-6 {
		t.Fatalf("aggregate %v, want %v", out[0], want)
	}
	rs, err := aggregate.NewReputation(aggregate.DefaultReputationConfig())
	if err != nil {
		t.Fatal(err)
	}
	before := rs.Score(others[1].From)
	rs.Observe(others, rep)
	if after := rs.Score(others[1].From); after < before {
		t.Fatalf("the left-out neighbour lost score: %v -> %v", before, after)
	}
}
