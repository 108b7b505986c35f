package scenario

import (
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/theory/topology"
)

// TestVictimPlacement on the path 0-1-2-3-4 with the random order 4, 3,
// 0, 1, 2: the victim is 2 (the order's last), its neighbours 1 and 3
// are the first attackers, then the order's first not yet taken (4);
// with one attacker only one neighbour (1, the graph's order).
func TestVictimPlacement(t *testing.T) {
	g, err := topology.NewGraph(5)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}} {
		if _, err := g.AddEdge(e[0], e[1]); err != nil {
			t.Fatal(err)
		}
	}
	order := []int{4, 3, 0, 1, 2}
	for _, tc := range []struct {
		count int
		want  []bool
	}{
		{3, []bool{false, true, false, true, true}},
		{1, []bool{false, true, false, false, false}},
	} {
		v, byz := victimPlacement(g, order, tc.count)
		if v != 2 || !slices.Equal(byz, tc.want) {
			t.Errorf("%d attackers: victim %d, attackers %v, want 2, %v", tc.count, v, byz, tc.want)
		}
	}
}
