package gossip

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/theory/topology"
)

func TestOnePeerExpPeer(t *testing.T) {
	cases := []struct{ i, t, n, want int }{
		{0, 0, 8, 1}, {0, 1, 8, 2}, {0, 2, 8, 4}, {0, 3, 8, 1}, // τ = 3
		{7, 2, 8, 3},
		{5, 2, 6, 3}, // τ = ⌈log2 6⌉ = 3: 5 + 4 mod 6
		{1, 5, 2, 0}, // τ = 1
		{0, 9, 1, 0},
	}
	for _, c := range cases {
		got, err := OnePeerExpPeer(c.i, c.t, c.n)
		if err != nil || got != c.want {
			t.Errorf("peer(%d, t=%d, n=%d) = %d %v, want %d", c.i, c.t, c.n, got, err, c.want)
		}
	}
	for _, bad := range [][3]int{{-1, 0, 4}, {4, 0, 4}, {0, -1, 4}, {0, 0, 0}} {
		if _, err := OnePeerExpPeer(bad[0], bad[1], bad[2]); !errors.Is(err, ErrSchedule) {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

// Hand-computed: 4 nodes holding 0, 1, 2, 3 reach exact consensus 1.5
// after τ = 2 one-peer exponential rounds.
func TestMixOnePeerExp(t *testing.T) {
	s := OnePeerExp{Nodes: 4}
	x := [][]float32{{0}, {1}, {2}, {3}}
	y := [][]float32{{0}, {0}, {0}, {0}}
	if err := Mix(s, 0, x, y); err != nil {
		t.Fatal(err)
	}
	for i, want := range []float32{0.5, 1.5, 2.5, 1.5} { // (x_i + x_{i+1})/2
		if y[i][0] != want {
			t.Fatalf("round 0: %v", y)
		}
	}
	if err := Mix(s, 1, y, x); err != nil {
		t.Fatal(err)
	}
	for i := range x {
		if x[i][0] != 1.5 {
			t.Fatalf("round 1: %v, want all 1.5", x)
		}
	}
}

// Every schedule's rows sum to 1, and Recipients is exactly the inverse
// of Row: j receives i's model iff i is in j's row.
func TestSchedulesConsistent(t *testing.T) {
	ring, _ := topology.RingLattice(7, 4)
	reg, _ := topology.RandomRegular(12, 3, rand.New(rand.NewPCG(1, 2)))
	star, _ := topology.NewGraph(5)
	for j := 1; j < 5; j++ {
		star.AddEdge(0, j) //nolint:errcheck
	}
	for _, s := range []Schedule{OnePeerExp{Nodes: 6}, OnePeerExp{Nodes: 8}, StaticGraph{ring}, StaticGraph{reg}, StaticGraph{star}} {
		for tt := range 5 {
			col := make([]float64, s.N())
			for i := range s.N() {
				row, _ := s.Row(i, tt)
				if row[0].Node != i {
					t.Fatalf("row %d does not start with self", i)
				}
				var sum float64
				for _, w := range row {
					sum += w.W
					col[w.Node] += w.W
					if w.Node != i {
						rs, _ := s.Recipients(w.Node, tt)
						if !slices.Contains(rs, i) {
							t.Fatalf("%T t=%d: %d mixes %d's model but is not its recipient", s, tt, i, w.Node)
						}
					}
				}
				if math.Abs(sum-1) > 1e-12 {
					t.Fatalf("%T row %d sums to %v", s, i, sum)
				}
				rs, _ := s.Recipients(i, tt)
				for _, r := range rs {
					row, _ := s.Row(r, tt)
					if !slices.ContainsFunc(row, func(w Weight) bool { return w.Node == i }) {
						t.Fatalf("%T: %d sends to %d, which does not mix it", s, i, r)
					}
				}
			}
			for j, c := range col { // doubly stochastic: the mean is kept
				if math.Abs(c-1) > 1e-12 {
					t.Fatalf("%T t=%d column %d sums to %v", s, tt, j, c)
				}
			}
		}
	}
}

// On a 4-regular ring lattice every weight is 1/5; on the star, MH gives
// the leaves 1/5 of the hub and the hub 1/5 of each leaf.
func TestStaticGraphWeights(t *testing.T) {
	ring, _ := topology.RingLattice(7, 4)
	x := make([][]float32, 7)
	y := make([][]float32, 7)
	for i := range x {
		x[i], y[i] = []float32{float32(i * i)}, []float32{0}
	}
	if err := Mix(StaticGraph{ring}, 0, x, y); err != nil {
		t.Fatal(err)
	}
	// node 0 averages nodes 5, 6, 0, 1, 2: (25 + 36 + 0 + 1 + 4)/5 = 13.2
	if math.Abs(float64(y[0][0])-13.2) > 1e-5 {
		t.Fatalf("ring mix %v", y[0])
	}
	star, _ := topology.NewGraph(5)
	for j := 1; j < 5; j++ {
		star.AddEdge(0, j) //nolint:errcheck
	}
	leaf, _ := StaticGraph{star}.Row(3, 0)
	if len(leaf) != 2 || leaf[0].W != 0.8 || leaf[1] != (Weight{0, 0.2}) {
		t.Fatalf("leaf row %v", leaf)
	}
	hub, _ := StaticGraph{star}.Row(0, 0)
	if math.Abs(hub[0].W-0.2) > 1e-12 || len(hub) != 5 {
		t.Fatalf("hub row %v", hub)
	}
	if err := Mix(StaticGraph{ring}, 0, x[:3], y); !errors.Is(err, ErrSchedule) {
		t.Fatalf("short models: %v", err)
	}
	x[2] = []float32{1, 2}
	if err := Mix(StaticGraph{ring}, 0, x, y); !errors.Is(err, ErrSchedule) {
		t.Fatalf("ragged models: %v", err)
	}
	// MixInto may write over the node's own model.
	self := []float32{2, 4}
	if err := MixInto(self, []Weight{{0, 0.5}, {1, 0.5}}, func(j int) []float32 {
		if j == 0 {
			return self
		}
		return []float32{4, 0}
	}); err != nil {
		t.Fatal(err)
	}
	near(t, self, 3, 2)
}
