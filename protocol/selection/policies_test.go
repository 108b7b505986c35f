package selection

import (
	"errors"
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/protocol/evalreq"
	"github.com/peerlearn/peerlearn/types/ident"
)

func TestRandomAndLocal(t *testing.T) {
	p := policy(t, KindRandom, func(c *Config) { c.Selected = 2 })
	sample := []Candidate{{ID: id(1)}, {ID: id(2)}, {ID: id(3)}, {ID: id(4)}}
	r := rng(5)
	counts := map[byte]int{}
	const trials = 4000
	for range trials {
		sel, err := p.Select(1, [][]Candidate{sample}, r)
		if err != nil || len(sel) != 2 || sel[0].ID == sel[1].ID {
			t.Fatal(sel, err)
		}
		for _, c := range sel {
			counts[c.ID[0]]++
		}
	}
	for b := byte(1); b <= 4; b++ { // each peer in half the selections
		if math.Abs(float64(counts[b])/trials-0.5) > 0.04 {
			t.Errorf("peer %d selected %d of %d", b, counts[b], trials)
		}
	}
	sel, _ := p.Select(1, [][]Candidate{sample[:1]}, r)
	if len(sel) != 1 {
		t.Fatalf("short sample: %v", sel)
	}

	l := policy(t, KindLocal, nil)
	if sel, err := l.Select(1, nil, r); sel != nil || err != nil || l.Plan(1) != (Plan{}) {
		t.Fatalf("local: %v %v", sel, err)
	}
	if w, _ := l.Weights(0, nil); len(w) != 1 || w[0] != 1 {
		t.Fatalf("local weights %v", w)
	}
}

func TestOracle(t *testing.T) {
	clusters := map[ident.Peer]int{self: 1, id(1): 1, id(2): 2, id(3): 1, id(4): 2, id(5): 1}
	p := policy(t, KindOracle, func(c *Config) { c.Selected, c.Clusters = 2, clusters })
	r := rng(9)
	for range 100 {
		sel, err := p.Select(4, nil, r)
		if err != nil || len(sel) != 2 {
			t.Fatal(sel, err)
		}
		for _, c := range sel {
			if clusters[c.ID] != 1 || c.ID == self {
				t.Fatalf("oracle selected %v", c.ID)
			}
		}
	}
	c := DefaultConfig(KindOracle)
	c.Self = id(9)
	c.Clusters = clusters
	if _, err := New(c); !errors.Is(err, ErrConfig) {
		t.Fatalf("self outside the clusters: %v", err)
	}
}

// Algorithm 5: w = sum a_j w_j / sum a_j with self's validation accuracy.
func TestRandomWeighted(t *testing.T) {
	p := policy(t, KindRandomWeighted, func(c *Config) { c.Selected = 5 })
	if pl := p.Plan(1); !pl.Evaluate || !pl.SelfEvaluate || pl.Size != 5 {
		t.Fatalf("plan %+v", pl)
	}
	sel, err := p.Select(1, [][]Candidate{{ev(1, 0, 0.6), {ID: id(2)}, ev(3, 0, 0.2)}}, rng(1))
	if err != nil || len(sel) != 2 {
		t.Fatalf("selected %v %v, want the two evaluated", idsOf(sel), err)
	}
	w, err := p.Weights(0.2, []Candidate{ev(1, 0, 0.6), ev(3, 0, 0.2)})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{0.2, 0.6, 0.2} {
		if math.Abs(w[i]-want) > 1e-15 {
			t.Fatalf("weights %v, want [0.2 0.6 0.2]", w)
		}
	}
	if w, _ := p.Weights(0, []Candidate{ev(1, 0, 0)}); w[0] != 0.5 || w[1] != 0.5 {
		t.Fatalf("all-zero accuracies: %v, want equal", w)
	}
	if _, err := p.Weights(1.5, nil); !errors.Is(err, ErrWeights) {
		t.Fatalf("self accuracy 1.5: %v", err)
	}
	if _, err := p.Weights(0.5, []Candidate{{ID: id(1)}}); !errors.Is(err, ErrWeights) {
		t.Fatalf("unevaluated neighbour: %v", err)
	}
}

func TestFromResults(t *testing.T) {
	cs := FromResults([]evalreq.Result{
		{Peer: id(1), Status: evalreq.Answered, Loss: 0.5, Accuracy: 0.9, Samples: 3},
		{Peer: id(2), Status: evalreq.Refused, Reason: evalreq.ReasonPolicy},
		{Peer: id(3), Status: evalreq.TimedOut},
	})
	want := []Candidate{ev(1, 0.5, 0.9), {ID: id(2)}, {ID: id(3)}}
	for i := range want {
		if cs[i] != want[i] {
			t.Fatalf("candidate %d: %+v, want %+v", i, cs[i], want[i])
		}
	}
	if ids := IDs(cs); len(ids) != 3 || ids[2] != id(3) {
		t.Fatalf("IDs %v", ids)
	}
}

func TestConfigValidate(t *testing.T) {
	for k := KindLocal; k <= KindOracle; k++ {
		c := DefaultConfig(k)
		c.Self = self
		c.Clusters = map[ident.Peer]int{self: 0}
		if _, err := New(c); err != nil {
			t.Errorf("%v defaults: %v", k, err)
		}
		name, err := ParseKind(k.String())
		if err != nil || name != k {
			t.Errorf("ParseKind(%q) = %v, %v", k.String(), name, err)
		}
	}
	bad := []Config{
		{Kind: KindRandom, Selected: 1},                         // no Self
		{Kind: KindRandom, Self: self},                          // Selected 0
		{Kind: KindGreedy, Self: self, Selected: 5, Sampled: 4}, // m > m_sample
		{Kind: KindEpsilonGreedy, Self: self, Selected: 1, Sampled: 2, Epsilon: 2, Lambda: 1},
		{Kind: KindEpsilonGreedy, Self: self, Selected: 1, Sampled: 2, Epsilon: 0.5, Lambda: 0},
		{Kind: KindPENS, Self: self, Selected: 1, Sampled: 2, Samplings: 0, Step1Rounds: 1, Step2Selected: 1},
		{Kind: KindOracle, Self: self, Selected: 1}, // no clusters
		{Kind: Kind(42), Self: self},
		{Kind: KindLocal, Self: self, Metric: 7},
	}
	for i, c := range bad {
		if _, err := New(c); !errors.Is(err, ErrConfig) {
			t.Errorf("bad %d: %v, want ErrConfig", i, err)
		}
	}
	if _, err := ParseKind("best"); !errors.Is(err, ErrConfig) {
		t.Fatal(err)
	}
}
