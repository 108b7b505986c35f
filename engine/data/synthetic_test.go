package data

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSyntheticLabelsBoundsAndNoise(t *testing.T) {
	shape := [3]int{2, 3, 1}
	s := NewSynthetic(rand.New(rand.NewPCG(1, 1)), shape, 3, 0.5)
	d := s.Draw(rand.New(rand.NewPCG(2, 2)), 30, s.Cycle)
	if d.Len() != 30 || d.Features() != 6 || d.Classes != 3 || len(d.X) != 180 {
		t.Fatalf("len %d, features %d, classes %d, %d values", d.Len(), d.Features(), d.Classes, len(d.X))
	}
	for i := range d.Len() {
		x, y := d.Sample(i)
		if int(y) != i%3 {
			t.Fatalf("sample %d: label %d, want %d", i, y, i%3)
		}
		tpl := s.templates[int(y)*6 : int(y+1)*6]
		for j, v := range x {
			if v < 0 || v > 1 || v < tpl[j]-0.25 || v > tpl[j]+0.25 {
				t.Fatalf("sample %d feature %d: %v, template %v, noise 0.5", i, j, v, tpl[j])
			}
		}
	}
}

// Two draws from one task share its templates: without noise every
// sample is its class's template, whatever rng the draw uses.
func TestSyntheticDrawsShareTemplates(t *testing.T) {
	s := NewSynthetic(rand.New(rand.NewPCG(1, 1)), [3]int{1, 4, 1}, 2, 0)
	a := s.Draw(rand.New(rand.NewPCG(5, 5)), 4, s.Cycle)
	b := s.Draw(rand.New(rand.NewPCG(6, 6)), 4, s.Cycle)
	if !slices.Equal(a.X, b.X) || !slices.Equal(a.X[:8], s.templates) || !slices.Equal(a.X[8:], s.templates) {
		t.Fatalf("draws %v and %v, templates %v", a.X, b.X, s.templates)
	}
}

func TestSyntheticRandomLabelsAreSeeded(t *testing.T) {
	draw := func() *Dataset {
		rng := rand.New(rand.NewPCG(3, 3))
		s := NewSynthetic(rng, [3]int{1, 2, 1}, 4, 0.6)
		return s.Draw(rng, 200, s.Random(rng))
	}
	a, b := draw(), draw()
	if !slices.Equal(a.X, b.X) || !slices.Equal(a.Y, b.Y) {
		t.Fatal("the same seed gave different data")
	}
	seen := map[int32]int{}
	for _, y := range a.Y {
		seen[y]++
	}
	for c := range int32(4) {
		if seen[c] < 20 {
			t.Fatalf("class %d drawn %d times of 200: %v", c, seen[c], seen)
		}
	}
}
