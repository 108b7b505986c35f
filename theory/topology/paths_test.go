package topology

import (
	"errors"
	"math"
	"testing"
)

func TestShortestPathsRing(t *testing.T) {
	for n := 3; n <= 12; n++ {
		g, _ := Ring(n)
		st, err := ShortestPaths(g)
		if err != nil {
			t.Fatal(err)
		}
		// From any node: two nodes at each distance 1..⌊(n-1)/2⌋, plus one
		// at n/2 when n is even.
		m := n / 2
		want := float64(m*(m+1)) / float64(n-1) // odd n = 2m+1: (m+1)/2
		if n%2 == 0 {
			want = float64(m*m) / float64(n-1)
		}
		if st.Diameter != n/2 || math.Abs(st.Average-want) > 1e-12 {
			t.Errorf("ring %d: diameter %d, ASP %v; want %d, %v", n, st.Diameter, st.Average, n/2, want)
		}
	}
}

func TestShortestPathsPathAndComplete(t *testing.T) {
	// Path on n nodes: diameter n-1, mean distance (n+1)/3.
	g, _ := NewGraph(7)
	for u := range 6 {
		g.AddEdge(u, u+1)
	}
	if d, _ := Diameter(g); d != 6 {
		t.Errorf("path diameter %d, want 6", d)
	}
	if a, _ := AverageShortestPath(g); math.Abs(a-8.0/3) > 1e-12 {
		t.Errorf("path ASP %v, want 8/3", a)
	}
	k, _ := Complete(9)
	if st, err := ShortestPaths(k); err != nil || st.Diameter != 1 || st.Average != 1 {
		t.Errorf("K9: %+v, %v; want diameter 1, ASP 1", st, err)
	}
	one, _ := NewGraph(1)
	if st, err := ShortestPaths(one); err != nil || st.Diameter != 0 || st.Average != 0 {
		t.Errorf("single node: %+v, %v", st, err)
	}
}

func TestShortestPathsDisconnected(t *testing.T) {
	g := twoTriangles(t)
	if _, err := Diameter(g); !errors.Is(err, ErrDisconnected) {
		t.Errorf("Diameter error = %v, want ErrDisconnected", err)
	}
	if _, err := AverageShortestPath(g); !errors.Is(err, ErrDisconnected) {
		t.Errorf("AverageShortestPath error = %v, want ErrDisconnected", err)
	}
}
