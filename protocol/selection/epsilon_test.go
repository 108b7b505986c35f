package selection

import (
	"math"
	"testing"
)

// With m_selected = 1 out of 11 evaluated peers, the greedy pick is
// swapped with probability p = lambda^t eps, and the replacement is drawn
// from the 10 others plus the swapped-out pick, so a non-greedy peer is
// selected with probability p * 10/11.
func TestEpsilonGreedyExploresWithProbEpsilon(t *testing.T) {
	sample := make([]Candidate, 11)
	for i := range sample {
		sample[i] = ev(byte(i+1), float64(i), 0.5) // peer 1 is the best
	}
	cases := []struct {
		eps, lambda float64
		t           int
	}{
		{0.3, 1, 1},
		{1, 0.9, 10}, // decayed: 0.9^10
		{0, 1, 1},    // pure greedy
	}
	const trials = 20000
	for _, c := range cases {
		p := policy(t, KindEpsilonGreedy, func(cf *Config) {
			cf.Selected, cf.Sampled, cf.Epsilon, cf.Lambda = 1, 11, c.eps, c.lambda
		})
		e := p.(*EpsilonGreedy)
		r := rng(7)
		explored := 0
		for range trials {
			sel, err := p.Select(c.t, [][]Candidate{sample}, r)
			if err != nil || len(sel) != 1 {
				t.Fatal(sel, err)
			}
			if sel[0].ID != id(1) {
				explored++
			}
		}
		prob := math.Pow(c.lambda, float64(c.t)) * c.eps
		if math.Abs(e.ExploreProb(c.t)-prob) > 1e-15 {
			t.Fatalf("ExploreProb %v, want %v", e.ExploreProb(c.t), prob)
		}
		want := prob * 10 / 11
		sd := math.Sqrt(want * (1 - want) / trials)
		got := float64(explored) / trials
		if math.Abs(got-want) > 4*sd+1e-12 {
			t.Errorf("eps %v lambda %v t %d: explored %.4f, want %.4f ± %.4f", c.eps, c.lambda, c.t, got, want, 4*sd)
		}
		// Swaps counts n_swap ~ Bin(1, p) per round.
		sw := float64(e.Swaps()) / trials
		if sd := math.Sqrt(prob * (1 - prob) / trials); math.Abs(sw-prob) > 4*sd+1e-12 {
			t.Errorf("swap rate %.4f, want %.4f", sw, prob)
		}
	}
}

// Swapped picks are replaced by distinct peers: the selection never
// repeats a peer and keeps its size.
func TestEpsilonGreedySwapsKeepSize(t *testing.T) {
	sample := []Candidate{ev(1, 1, 0), ev(2, 2, 0), ev(3, 3, 0), ev(4, 4, 0), ev(5, 5, 0)}
	p := policy(t, KindEpsilonGreedy, func(c *Config) { c.Selected, c.Sampled, c.Epsilon, c.Lambda = 3, 5, 1, 1 })
	r := rng(3)
	seen := map[byte]int{}
	for range 2000 {
		sel, _ := p.Select(1, [][]Candidate{sample}, r)
		if len(sel) != 3 {
			t.Fatalf("size %d", len(sel))
		}
		got := map[byte]bool{}
		for _, c := range sel {
			if got[c.ID[0]] {
				t.Fatalf("repeated peer in %v", idsOf(sel))
			}
			got[c.ID[0]] = true
			seen[c.ID[0]]++
		}
	}
	// With eps = 1 every pick is swapped: all five peers show up.
	if len(seen) != 5 {
		t.Fatalf("peers selected: %v", seen)
	}
}
