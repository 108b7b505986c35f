package gossip

import (
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

// With a schedule and every model in time, a RoundNode's round is the
// schedule's mixing step (Mix): the simulator's baselines run on the
// core real peers run.
func TestRoundNodeScheduleIsMix(t *testing.T) {
	init := [][]float32{{1, 0}, {0, 1}, {4, 2}, {8, -1}, {-3, 5}}
	for _, s := range []Schedule{OnePeerExp{Nodes: 5}, StaticGraph{adj{{1, 4}, {0, 2}, {1, 3}, {2, 4}, {3, 0}}}} {
		ids := make([]ident.Peer, s.N())
		for i := range ids {
			ids[i] = id(byte(i + 1))
		}
		nodes := make([]*RoundNode, s.N())
		for i := range nodes {
			ns := &NodeSchedule{Schedule: s, Node: i, IDs: ids}
			var err error
			if nodes[i], err = NewRoundNode(RoundConfig{ID: ids[i], Arch: "t", NumParams: 2, Timeout: 3, Schedule: ns}, init[i]); err != nil {
				t.Fatal(err)
			}
			peers, err := ns.Peers(10)
			if err != nil {
				t.Fatal(err)
			}
			if err := nodes[i].SetPeers(peers); err != nil {
				t.Fatal(err)
			}
		}
		want := init
		held := map[int][]float32{}
		for round := 1; round <= 4; round++ {
			pump(t, nodes, -1, uint64(round-1), held)
			out := make([][]float32, len(want))
			for i := range out {
				out[i] = make([]float32, 2)
			}
			if err := Mix(s, round, want, out); err != nil {
				t.Fatal(err)
			}
			want = out
			for i, n := range nodes {
				if r, _ := n.Round(); int(r) != round || held[i] == nil {
					t.Fatalf("%T round %d: node %d at round %d (mix %v)", s, round, i, r, held[i])
				}
				for k, v := range held[i] {
					if math.Abs(float64(v-want[i][k])) > 1e-5 {
						t.Fatalf("%T round %d node %d: mix %v, want %v", s, round, i, held[i], want[i])
					}
				}
			}
		}
		if st := nodes[0].Stats(); st.Timeouts != 0 || st.Stale != 0 {
			t.Fatalf("%T: stats %+v", s, st)
		}
	}
}

// A schedule that does not name the node's ID, or names a peer twice, is
// refused.
func TestRoundNodeScheduleValidated(t *testing.T) {
	ids := []ident.Peer{id(1), id(2)}
	for _, ns := range []*NodeSchedule{
		{Schedule: OnePeerExp{Nodes: 2}, Node: 1, IDs: ids},
		{Schedule: OnePeerExp{Nodes: 3}, Node: 0, IDs: ids},
		{Schedule: OnePeerExp{Nodes: 2}, Node: 0, IDs: []ident.Peer{id(1), id(1)}},
		{Node: 0, IDs: ids},
	} {
		if _, err := NewRoundNode(RoundConfig{ID: id(1), Arch: "t", NumParams: 1, Timeout: 1, Schedule: ns}, []float32{0}); err == nil {
			t.Errorf("%+v accepted", ns)
		}
	}
}
