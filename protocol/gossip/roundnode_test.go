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
