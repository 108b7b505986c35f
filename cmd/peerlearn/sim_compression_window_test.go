package main

import (
	"slices"
	"testing"
)

// A peer's window keeps copies of the models it ended its last w rounds
// on: a model is kept when the round counter moves (not twice for one
// round, not nil), the oldest goes when there are more than w, and the
// end's model is kept unless it is the one kept last.
func TestRoundModelsWindow(t *testing.T) {
	rm := newRoundModels(2, 3)
	m := func(v float32) []float32 { return []float32{v, v} }
	cur := m(1)
	rm.seen(0, 0, nil) // no model yet: nothing kept
	rm.seen(0, 1, cur)
	cur[0] = 9          // a copy was kept, not the core's slice
	rm.seen(0, 1, m(2)) // same round: not kept
	if !slices.EqualFunc(rm.models[0], [][]float32{m(1)}, slices.Equal) {
		t.Fatalf("peer 0 kept %v, want [[1 1]]", rm.models[0])
	}
	for r := 2; r <= 5; r++ {
		rm.seen(0, r, m(float32(r)))
	}
	rm.end([][]float32{m(5), m(7)}) // peer 0 ends on what it kept last
	want := [][]float32{m(3), m(4), m(5)}
	if !slices.EqualFunc(rm.models[0], want, slices.Equal) {
		t.Errorf("peer 0 kept %v, want %v", rm.models[0], want)
	}
	if !slices.EqualFunc(rm.models[1], [][]float32{m(7)}, slices.Equal) {
		t.Errorf("peer 1 (no round seen) kept %v, want its end model alone", rm.models[1])
	}
	if compressionWindow(16) != 4 || compressionWindow(8) != 2 || compressionWindow(3) != 1 {
		t.Errorf("windows %d %d %d, want 4 2 1", compressionWindow(16), compressionWindow(8), compressionWindow(3))
	}
}
