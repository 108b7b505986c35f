package gossip

import (
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

// adj is an undirected graph for the tests (Graph).
type adj [][]int

func (g adj) N() int                { return len(g) }
func (g adj) Degree(u int) int      { return len(g[u]) }
func (g adj) Neighbors(u int) []int { return g[u] }

// roundNet builds RoundNodes on graph g (pump runs them).
func roundNet(t *testing.T, g adj, initial [][]float32) []*RoundNode {
	t.Helper()
	nodes := make([]*RoundNode, g.N())
	ids := make([]ident.Peer, g.N())
	for i := range ids {
		ids[i] = id(byte(i + 1))
	}
	for i := range nodes {
		var err error
		if nodes[i], err = NewRoundNode(RoundConfig{ID: ids[i], Arch: "t", NumParams: len(initial[i]), Timeout: 3}, initial[i]); err != nil {
			t.Fatal(err)
		}
		var nb []ident.Peer
		for _, j := range g[i] {
			nb = append(nb, ids[j])
		}
		if err := nodes[i].SetPeers(nb); err != nil {
			t.Fatal(err)
		}
	}
	return nodes
}

// pump delivers messages and trains (identity) until nothing is ready,
// training no node past round limit (held: its mix, reported by a later
// pump).
func pump(t *testing.T, nodes []*RoundNode, drop int, limit uint64, held map[int][]float32) {
	t.Helper()
	for i, tr := range held {
		if r, _ := nodes[i].Round(); r <= limit {
			delete(held, i)
			if err := nodes[i].ReportTrained(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
	index := map[ident.Peer]int{}
	for i, n := range nodes {
		index[n.cfg.ID] = i
	}
	for busy := true; busy; {
		busy = false
		for i, n := range nodes {
			if !n.HasReady() {
				continue
			}
			busy = true
			msgs, tr := n.Ready()
			for _, m := range msgs {
				if i == drop {
					continue
				}
				if err := nodes[index[m.To]].Step(m); err != nil {
					t.Fatal(err)
				}
			}
			if r, _ := n.Round(); tr != nil && r > limit {
				held[i] = tr
			} else if tr != nil {
				if err := n.ReportTrained(tr); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// With every model in time a round is StaticGraph's mixing step
// (Metropolis-Hastings weights, here on a path of degrees 1, 2, 2, 1).
func TestRoundNodeIsStaticGraphMixing(t *testing.T) {
	g := adj{{1}, {0, 2}, {1, 3}, {2}}
	init := [][]float32{{1, 0}, {0, 1}, {4, 2}, {8, -1}}
	nodes := roundNet(t, g, init)
	want := init
	held := map[int][]float32{}
	for round := 1; round <= 3; round++ {
		pump(t, nodes, -1, uint64(round-1), held)
		out := make([][]float32, len(want))
		for i := range out {
			out[i] = make([]float32, 2)
		}
		if err := Mix(StaticGraph{g}, round, want, out); err != nil {
			t.Fatal(err)
		}
		want = out
		for i, n := range nodes {
			if r, _ := n.Round(); int(r) != round {
				t.Fatalf("round %d: node %d at round %d", round, i, r)
			}
			for k, v := range held[i] {
				if math.Abs(float64(v-want[i][k])) > 1e-6 {
					t.Fatalf("round %d node %d: mix %v, want %v", round, i, held[i], want[i])
				}
			}
		}
	}
}

// A silent neighbour does not stall a round: after Timeout ticks the node
// mixes without it, its weight staying with the node.
func TestRoundNodeTimeout(t *testing.T) {
	g := adj{{1, 2}, {0}, {0}}
	nodes := roundNet(t, g, [][]float32{{0}, {3}, {6}})
	held := map[int][]float32{}
	pump(t, nodes, 2, 0, held) // node 2's models are lost
	if r, _ := nodes[0].Round(); r != 0 {
		t.Fatalf("node 0 mixed without node 2's model before the timeout (round %d)", r)
	}
	for range 3 {
		nodes[0].Tick()
	}
	pump(t, nodes, 2, 0, held)
	// W_01 = 1/(1+max(2,1)) = 1/3; node 2's 1/3 stays with node 0: 2/3*0 + 1/3*3.
	if r, _ := nodes[0].Round(); r != 1 || math.Abs(float64(held[0][0]-1)) > 1e-6 {
		t.Fatalf("after the timeout: round %d, mix %v, want round 1, [1]", r, held[0])
	}
	if st := nodes[0].Stats(); st.Timeouts != 1 || st.Missing != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// A node that starts late catches up with its neighbour, and from then
// on neither pushes the other's round ahead of its trainings: the leader
// trains every one of its MaxRounds rounds (the catch-up rule once set a
// node one past the neighbour's round, and the two leapfrogged, each mix
// skipping a round: real peers trained 4-6 of 12 rounds).
func TestRoundNodeCatchUpDoesNotLeapfrog(t *testing.T) {
	const rounds, head = 12, 3
	ids := []ident.Peer{id(1), id(2)}
	nodes := make([]*RoundNode, 2)
	for i := range nodes {
		var err error
		if nodes[i], err = NewRoundNode(RoundConfig{ID: ids[i], Arch: "t", NumParams: 1, Timeout: 3, MaxRounds: rounds}, []float32{float32(i)}); err != nil {
			t.Fatal(err)
		}
		if err := nodes[i].SetPeers(ids[1-i : 2-i]); err != nil {
			t.Fatal(err)
		}
	}
	trainings := make([]int, 2)
	// step hands out node i's messages and trains its mix (identity) at once.
	step := func(i int) {
		msgs, tr := nodes[i].Ready()
		for _, m := range msgs {
			if err := nodes[1-i].Step(m); err != nil {
				t.Fatal(err)
			}
		}
		if tr != nil {
			trainings[i]++
			if err := nodes[i].ReportTrained(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Node 0 runs head rounds alone (node 1's round 0 still training):
	// each times out.
	step(0)
	for r := 0; r < head; r++ {
		for range 3 {
			nodes[0].Tick()
		}
		step(0)
	}
	if r, _ := nodes[0].Round(); r != head {
		t.Fatalf("node 0 at round %d after %d timeouts", r, head)
	}
	for guard := 0; !(nodes[0].Done() && nodes[1].Done()); guard++ {
		if guard > 100 {
			t.Fatalf("not done: rounds %v", trainings)
		}
		step(1)
		step(0)
	}
	if trainings[0] != rounds {
		t.Fatalf("the leader trained %d times in %d rounds", trainings[0], rounds)
	}
	if trainings[1] < rounds-head {
		t.Fatalf("the late node trained %d times, want >= %d", trainings[1], rounds-head)
	}
	if s0, s1 := nodes[0].Stats().Skipped, nodes[1].Stats().Skipped; s0 != 0 || s1 == 0 || s1 > head {
		t.Fatalf("rounds skipped: %d by the leader, %d by the late node (want 0, 1..%d)", s0, s1, head)
	}
}

// A node without neighbours holds its round instead of timing out alone;
// a neighbour that appears is sent its model, and the round's wait (and
// timeout) starts then.
func TestRoundNodeWithoutNeighboursWaits(t *testing.T) {
	n, err := NewRoundNode(RoundConfig{ID: id(1), Arch: "t", NumParams: 1, Timeout: 3}, []float32{1})
	if err != nil {
		t.Fatal(err)
	}
	if _, tr := n.Ready(); tr == nil {
		t.Fatal("round 0 not handed out to train")
	}
	if err := n.ReportTrained([]float32{2}); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		n.Tick()
	}
	if r, training := n.Round(); r != 0 || training || n.HasReady() {
		t.Fatalf("alone: round %d, training %v, ready %v", r, training, n.HasReady())
	}
	if err := n.SetPeers([]ident.Peer{id(2)}); err != nil {
		t.Fatal(err)
	}
	msgs, tr := n.Ready()
	if len(msgs) != 1 || msgs[0].To != id(2) || msgs[0].Age != 0 || msgs[0].Params[0] != 2 || tr != nil {
		t.Fatalf("a new neighbour got %+v (train %v), want the round-0 model", msgs, tr)
	}
	n.Tick()
	n.Tick()
	if _, training := n.Round(); training {
		t.Fatal("timed out before Timeout ticks with a neighbour")
	}
	n.Tick()
	if r, training := n.Round(); r != 1 || !training {
		t.Fatalf("after the timeout: round %d, training %v", r, training)
	}
}
