package selection

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

func TestGreedyPicksBestReporters(t *testing.T) {
	sample := []Candidate{
		ev(1, 2.0, 0.30),
		ev(2, 0.5, 0.80),
		{ID: id(3)}, // refused: never picked
		ev(4, 0.9, 0.70),
		ev(5, 0.5, 0.85), // ties 2 on loss, wins on accuracy
		ev(6, 3.0, 0.95), // worst loss, best accuracy
	}
	p := policy(t, KindGreedy, func(c *Config) { c.Selected, c.Sampled = 3, 6 })
	if pl := p.Plan(1); pl != (Plan{Samples: 1, Size: 6, Evaluate: true}) {
		t.Fatalf("plan %+v", pl)
	}
	sel, err := p.Select(1, [][]Candidate{sample}, rng(1))
	if err != nil {
		t.Fatal(err)
	}
	if got := idsOf(sel); !bytes.Equal(got, []byte{5, 2, 4}) {
		t.Fatalf("by loss: %v, want [5 2 4]", got)
	}
	p = policy(t, KindGreedy, func(c *Config) { c.Selected, c.Sampled, c.Metric = 2, 6, MetricAccuracy })
	sel, _ = p.Select(1, [][]Candidate{sample}, rng(1))
	if got := idsOf(sel); !bytes.Equal(got, []byte{6, 5}) {
		t.Fatalf("by accuracy: %v, want [6 5]", got)
	}
	// The input order does not matter; an exact tie goes to the smaller ID.
	rev := []Candidate{ev(9, 1, 0.5), ev(8, 1, 0.5), ev(7, 1, 0.5)}
	sel, _ = p.Select(1, [][]Candidate{rev}, rng(1))
	if got := idsOf(sel); !bytes.Equal(got, []byte{7, 8}) {
		t.Fatalf("ties: %v, want [7 8]", got)
	}
	w, _ := p.Weights(0, sel)
	if len(w) != 3 || math.Abs(w[0]-1.0/3) > 1e-15 {
		t.Fatalf("weights %v", w)
	}
}

func TestSelectRejects(t *testing.T) {
	p := policy(t, KindGreedy, nil)
	cases := []struct {
		t       int
		samples [][]Candidate
		rng     bool
		want    error
	}{
		{0, nil, true, ErrRound},
		{1, nil, false, ErrRNG},
		{1, [][]Candidate{{ev(1, 1, 1), ev(1, 2, 0)}}, true, ErrCandidates},
		{1, [][]Candidate{{{ID: self}}}, true, ErrCandidates},
		{1, [][]Candidate{{ev(1, -1, 0)}}, true, ErrCandidates},
		{1, [][]Candidate{{ev(1, math.NaN(), 0)}}, true, ErrCandidates},
		{1, [][]Candidate{{ev(1, 1, 1.5)}}, true, ErrCandidates},
	}
	for i, c := range cases {
		r := rng(1)
		if !c.rng {
			r = nil
		}
		if _, err := p.Select(c.t, c.samples, r); !errors.Is(err, c.want) {
			t.Errorf("case %d: %v, want %v", i, err, c.want)
		}
	}
	// An unevaluated peer with garbage numbers is fine: they are ignored.
	if _, err := p.Select(1, [][]Candidate{{{ID: id(1), Loss: -5}}}, rng(1)); err != nil {
		t.Fatal(err)
	}
}
