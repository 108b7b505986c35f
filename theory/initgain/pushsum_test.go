package initgain

import (
	"errors"
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/theory/topology"
)

// network wires one PushSum node per graph node; node 0 initiates.
func network(t *testing.T, g *topology.Graph, seed uint64) []*PushSum {
	t.Helper()
	nodes := make([]*PushSum, g.N())
	for i := range nodes {
		p, err := NewPushSum(i, g.Neighbors(i), i == 0, seeded(seed+uint64(i)))
		if err != nil {
			t.Fatal(err)
		}
		nodes[i] = p
	}
	return nodes
}

// round runs one synchronous round: every node ticks, then all messages
// are delivered.
func round(t *testing.T, nodes []*PushSum) {
	t.Helper()
	var msgs []PushSumMsg
	for _, p := range nodes {
		if m, ok := p.Tick(); ok {
			msgs = append(msgs, m)
		}
	}
	for _, m := range msgs {
		if err := nodes[m.To].Step(m); err != nil {
			t.Fatal(err)
		}
	}
}

// worstError is the largest |estimate/n - 1| over nodes (+Inf while any
// node has no estimate).
func worstError(nodes []*PushSum) float64 {
	worst := 0.0
	for _, p := range nodes {
		est, ok := p.Estimate()
		if !ok {
			return math.Inf(1)
		}
		worst = max(worst, math.Abs(est/float64(len(nodes))-1))
	}
	return worst
}

func TestPushSumCountsRandomRegularGraph(t *testing.T) {
	for _, n := range []int{64, 128} {
		g, err := topology.RandomRegular(n, 4, seeded(uint64(n)))
		if err != nil {
			t.Fatal(err)
		}
		nodes := network(t, g, 100)
		const budget = 120
		converged := -1
		for r := 1; r <= budget; r++ {
			round(t, nodes)
			if worstError(nodes) <= 0.05 {
				converged = r
				break
			}
		}
		if converged < 0 {
			t.Fatalf("n = %d: worst error %.3f after %d rounds", n, worstError(nodes), budget)
		}
		// Mass is conserved: Σs = n, Σw = 1.
		var s, w float64
		for _, p := range nodes {
			ps, pw := p.Mass()
			s, w = s+ps, w+pw
		}
		if math.Abs(s-float64(n)) > 1e-9 || math.Abs(w-1) > 1e-12 {
			t.Errorf("n = %d: mass (%v, %v), want (%d, 1)", n, s, w, n)
		}
		// The estimate keeps improving: 30 more rounds reach 1%.
		for range 30 {
			round(t, nodes)
		}
		if e := worstError(nodes); e > 0.01 {
			t.Errorf("n = %d: worst error %.4f 30 rounds after convergence", n, e)
		}
		t.Logf("n = %d: all nodes within 5%% of n after %d rounds", n, converged)
	}
}

func TestPushSumDeterministic(t *testing.T) {
	g, _ := topology.RandomRegular(64, 4, seeded(3))
	a, b := network(t, g, 7), network(t, g, 7)
	for range 15 {
		round(t, a)
		round(t, b)
	}
	for i := range a {
		ea, oka := a[i].Estimate()
		eb, okb := b[i].Estimate()
		if ea != eb || oka != okb {
			t.Fatalf("node %d: %v/%v vs %v/%v with the same seeds", i, ea, oka, eb, okb)
		}
	}
}

func TestPushSumEdgeCases(t *testing.T) {
	lone, _ := NewPushSum(0, nil, true, seeded(1))
	if _, ok := lone.Tick(); ok {
		t.Error("a node without neighbours sent a message")
	}
	if est, ok := lone.Estimate(); !ok || est != 1 {
		t.Errorf("lone initiator estimate %v, %v; want 1", est, ok)
	}
	quiet, _ := NewPushSum(1, []int{0}, false, seeded(2))
	if _, ok := quiet.Estimate(); ok {
		t.Error("a node with no weight has an estimate")
	}
	m, _ := quiet.Tick()
	if m.From != 1 || m.To != 0 || m.S != 0.5 || m.W != 0 {
		t.Errorf("tick message %+v, want half of s = 1 to node 0", m)
	}
	for name, err := range map[string]error{
		"wrong recipient": quiet.Step(PushSumMsg{From: 0, To: 2, S: 1, W: 1}),
		"negative mass":   quiet.Step(PushSumMsg{From: 0, To: 1, S: -1, W: 1}),
		"NaN mass":        quiet.Step(PushSumMsg{From: 0, To: 1, S: 1, W: math.NaN()}),
	} {
		if !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
	if _, err := NewPushSum(3, []int{1, 3}, false, seeded(1)); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("self as neighbour: %v", err)
	}
	if _, err := NewPushSum(3, []int{1}, false, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("nil rng: %v", err)
	}
}
