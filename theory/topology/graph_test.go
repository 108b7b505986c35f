package topology

import (
	"errors"
	"slices"
	"testing"
)

func TestNewGraphRejectsEmpty(t *testing.T) {
	for _, n := range []int{0, -1} {
		if _, err := NewGraph(n); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("NewGraph(%d) error = %v, want ErrInvalidArgument", n, err)
		}
	}
}

func TestAddEdge(t *testing.T) {
	g, err := NewGraph(4)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range [][2]int{{2, 0}, {0, 1}, {3, 0}} {
		if added, err := g.AddEdge(e[0], e[1]); !added || err != nil {
			t.Fatalf("AddEdge%v = %v, %v; want true, nil", e, added, err)
		}
	}
	if added, err := g.AddEdge(0, 2); added || err != nil {
		t.Errorf("repeated AddEdge(0, 2) = %v, %v; want false, nil", added, err)
	}
	for _, e := range [][2]int{{1, 1}, {-1, 0}, {0, 4}} {
		if _, err := g.AddEdge(e[0], e[1]); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("AddEdge%v error = %v, want ErrInvalidArgument", e, err)
		}
	}
	if g.M() != 3 || g.Degree(0) != 3 || g.Degree(2) != 1 {
		t.Errorf("M = %d, deg(0) = %d, deg(2) = %d; want 3, 3, 1", g.M(), g.Degree(0), g.Degree(2))
	}
	if got := g.Neighbors(0); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("Neighbors(0) = %v, want sorted [1 2 3]", got)
	}
	if !g.HasEdge(3, 0) || g.HasEdge(1, 2) || g.HasEdge(0, 9) {
		t.Error("HasEdge wrong")
	}
	want := [][2]int{{0, 1}, {0, 2}, {0, 3}}
	if got := g.Edges(); !slices.Equal(got, want) {
		t.Errorf("Edges = %v, want %v", got, want)
	}
	if got := g.Degrees(); !slices.Equal(got, []int{3, 1, 1, 1}) {
		t.Errorf("Degrees = %v", got)
	}
}

func TestCloneIsIndependent(t *testing.T) {
	g, _ := Ring(5)
	c := g.Clone()
	c.AddEdge(0, 2)
	if g.HasEdge(0, 2) || g.M() != 5 || c.M() != 6 {
		t.Errorf("clone shares state: g.M = %d, c.M = %d", g.M(), c.M())
	}
}

// twoTriangles returns triangles {0,2,4} and {1,3,5} plus an edge 6-7.
func twoTriangles(t *testing.T) *Graph {
	t.Helper()
	g, _ := NewGraph(8)
	for _, e := range [][2]int{{0, 2}, {2, 4}, {4, 0}, {1, 3}, {3, 5}, {5, 1}, {6, 7}} {
		if _, err := g.AddEdge(e[0], e[1]); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func TestComponents(t *testing.T) {
	g := twoTriangles(t)
	want := [][]int{{0, 2, 4}, {1, 3, 5}, {6, 7}}
	got := g.Components()
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("Components = %v, want %v", got, want)
	}
	if g.Connected() {
		t.Error("Connected = true for three components")
	}
	lc := g.LargestComponent()
	if lc.N() != 3 || lc.M() != 3 || !lc.Connected() {
		t.Errorf("LargestComponent: n = %d, m = %d", lc.N(), lc.M())
	}
	single, _ := NewGraph(1)
	if !single.Connected() {
		t.Error("single node not connected")
	}
}

func TestSubgraph(t *testing.T) {
	g, _ := Complete(5)
	s, err := g.Subgraph([]int{4, 1, 3})
	if err != nil {
		t.Fatal(err)
	}
	if s.N() != 3 || s.M() != 3 {
		t.Errorf("K5 on 3 nodes: n = %d, m = %d; want K3", s.N(), s.M())
	}
	for _, bad := range [][]int{nil, {1, 1}, {5}, {-1}} {
		if _, err := g.Subgraph(bad); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Subgraph(%v) error = %v, want ErrInvalidArgument", bad, err)
		}
	}
}
