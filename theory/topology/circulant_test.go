package topology

import (
	"errors"
	"slices"
	"testing"
)

func TestRing(t *testing.T) {
	g, err := Ring(6)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{0, 1}, {0, 5}, {1, 2}, {2, 3}, {3, 4}, {4, 5}}
	if got := g.Edges(); !slices.Equal(got, want) {
		t.Errorf("Ring(6) edges = %v, want %v", got, want)
	}
	if g2, _ := Ring(2); g2.M() != 1 {
		t.Errorf("Ring(2) has %d edges, want 1 (simple graph)", g2.M())
	}
	if g1, _ := Ring(1); g1.M() != 0 || g1.N() != 1 {
		t.Errorf("Ring(1): n = %d, m = %d", g1.N(), g1.M())
	}
	if _, err := Ring(0); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Ring(0) error = %v", err)
	}
}

func TestChord(t *testing.T) {
	// n = 8: offsets ±1, ±2 and 4 (= -4): degree 5.
	g, _ := Chord(8)
	if got := g.Neighbors(0); !slices.Equal(got, []int{1, 2, 4, 6, 7}) {
		t.Errorf("Chord(8) neighbours of 0 = %v", got)
	}
	// n = 300: ±2^k for k = 0..8 are 18 distinct residues.
	g, _ = Chord(300)
	for u, d := range g.Degrees() {
		if d != 18 {
			t.Fatalf("Chord(300) degree(%d) = %d, want 18", u, d)
		}
	}
	if !g.HasEdge(0, 256) || !g.HasEdge(0, 44) || g.HasEdge(0, 3) {
		t.Error("Chord(300) fingers of 0 wrong")
	}
}

func TestRingLatticeAndCirculant(t *testing.T) {
	g, err := RingLattice(10, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Neighbors(0); !slices.Equal(got, []int{1, 2, 8, 9}) {
		t.Errorf("RingLattice(10, 4) neighbours of 0 = %v", got)
	}
	if g.M() != 20 {
		t.Errorf("M = %d, want 20", g.M())
	}
	for _, k := range []int{3, -2, 10} {
		if _, err := RingLattice(10, k); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("RingLattice(10, %d) error = %v", k, err)
		}
	}
	for _, o := range []int{0, 10} {
		if _, err := Circulant(10, []int{o}); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Circulant offset %d error = %v", o, err)
		}
	}
}

func TestOnePeerExponential(t *testing.T) {
	// n = 8: τ = 3, rounds use offsets 1, 2, 4, 1, ...
	union, _ := NewGraph(8)
	for r := range 3 {
		g, err := OnePeerExponential(8, r)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range g.Edges() {
			union.AddEdge(e[0], e[1])
		}
	}
	chord, _ := Chord(8)
	if !slices.Equal(union.Edges(), chord.Edges()) {
		t.Errorf("union of rounds 0..2 = %v, want Chord(8) %v", union.Edges(), chord.Edges())
	}
	g4, _ := OnePeerExponential(8, 2)
	if g4.M() != 4 { // offset 4 = -4: a perfect matching
		t.Errorf("round 2 has %d edges, want 4", g4.M())
	}
	g3, _ := OnePeerExponential(8, 3)
	g0, _ := OnePeerExponential(8, 0)
	if !slices.Equal(g3.Edges(), g0.Edges()) {
		t.Error("round 3 should repeat round 0")
	}
	if _, err := OnePeerExponential(8, -1); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("t = -1 error = %v", err)
	}
}

func TestComplete(t *testing.T) {
	g, _ := Complete(5)
	if g.M() != 10 {
		t.Errorf("K5 has %d edges, want 10", g.M())
	}
	if got := g.Neighbors(2); !slices.Equal(got, []int{0, 1, 3, 4}) {
		t.Errorf("K5 neighbours of 2 = %v", got)
	}
	if _, err := Complete(0); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Complete(0) error = %v", err)
	}
}
