package gossip

import (
	"errors"
	"math"
	"testing"
)

func near(t *testing.T, got []float32, want ...float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestMergeHandComputed(t *testing.T) {
	out := make([]float32, 2)
	cases := []struct {
		l, r    []float32
		al, ar  uint64
		want    []float32
		wantAge uint64
	}{
		// (1*1 + 3*4)/4 = 3.25, (1*2 + 3*8)/4 = 6.5
		{[]float32{1, 2}, []float32{4, 8}, 1, 3, []float32{3.25, 6.5}, 3},
		// both new: plain mean
		{[]float32{1, 2}, []float32{4, 8}, 0, 0, []float32{2.5, 5}, 0},
		// a new local model counts nothing against an aged one
		{[]float32{1, 2}, []float32{4, 8}, 0, 5, []float32{4, 8}, 5},
		// (30*1 + 10*-3)/40 = 0, (30*10 + 10*2)/40 = 8
		{[]float32{1, 10}, []float32{-3, 2}, 30, 10, []float32{0, 8}, 30},
	}
	for _, c := range cases {
		age, err := Merge(c.l, c.r, c.al, c.ar, out)
		if err != nil {
			t.Fatal(err)
		}
		near(t, out, c.want...)
		if age != c.wantAge {
			t.Fatalf("age %d, want %d", age, c.wantAge)
		}
	}
	// In place.
	l := []float32{1, 2}
	if _, err := Merge(l, []float32{4, 8}, 1, 3, l); err != nil {
		t.Fatal(err)
	}
	near(t, l, 3.25, 6.5)
	// Refusals leave out untouched.
	out = []float32{7, 7}
	for i, c := range []struct {
		l, r   []float32
		al, ar uint64
	}{
		{[]float32{1, 2}, []float32{1}, 1, 1},
		{[]float32{1, 2}, []float32{1, float32(math.NaN())}, 1, 1},
		{[]float32{float32(math.Inf(-1)), 2}, []float32{1, 1}, 1, 1},
		{[]float32{1, 2}, []float32{1, 1}, MaxAge + 1, 1},
	} {
		if _, err := Merge(c.l, c.r, c.al, c.ar, out); !errors.Is(err, ErrBadModel) {
			t.Errorf("case %d: %v, want ErrBadModel", i, err)
		}
	}
	near(t, out, 7, 7)
}
