package data

import (
	"errors"
	"slices"
	"testing"
)

func TestSubset(t *testing.T) {
	d := synth(uniform(3, 4)) // 12 samples, pixel values = index
	s, err := d.Subset([]int{7, 2, 7})
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 3 || s.Shape != d.Shape || s.Classes != 3 {
		t.Fatalf("subset: %d samples, shape %v, %d classes", s.Len(), s.Shape, s.Classes)
	}
	for k, i := range []int{7, 2, 7} {
		x, y := s.Sample(k)
		dx, dy := d.Sample(i)
		if !slices.Equal(x, dx) || y != dy {
			t.Fatalf("sample %d: %v %d, want %v %d", k, x, y, dx, dy)
		}
	}
	s.X[0] = -1
	if d.X[7*4] == -1 {
		t.Fatal("Subset shares memory with its parent")
	}
	if !slices.Equal(d.Hist(), []int{4, 4, 4}) || !slices.Equal(s.Hist(), []int{0, 2, 1}) {
		t.Fatalf("histograms %v and %v", d.Hist(), s.Hist())
	}
	for _, bad := range [][]int{{-1}, {12}, {0, 99}} {
		if _, err := d.Subset(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("Subset(%v): %v", bad, err)
		}
	}
	var nilData *Dataset
	if _, err := nilData.Subset([]int{0}); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil Subset: %v", err)
	}
	if _, err := d.Client(Shard{Indices: []int{12}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Client with a bad index: %v", err)
	}
}

func TestRotate180(t *testing.T) {
	// One 2x3 grey image and one 2x2 image with 2 channels.
	grey := &Dataset{X: []float32{1, 2, 3, 4, 5, 6}, Y: []int32{0}, Shape: [3]int{2, 3, 1}, Classes: 1}
	grey.Rotate180()
	if want := []float32{6, 5, 4, 3, 2, 1}; !slices.Equal(grey.X, want) {
		t.Fatalf("grey rotated: %v, want %v", grey.X, want)
	}
	// pixel (r,c) = channels (10*p, 10*p+1) for p = r*2+c.
	rgb := &Dataset{X: []float32{0, 1, 10, 11, 20, 21, 30, 31, 40, 41, 50, 51, 60, 61, 70, 71}, Y: []int32{0, 0}, Shape: [3]int{2, 2, 2}, Classes: 1}
	orig := slices.Clone(rgb.X)
	rgb.Rotate180()
	if want := []float32{30, 31, 20, 21, 10, 11, 0, 1, 70, 71, 60, 61, 50, 51, 40, 41}; !slices.Equal(rgb.X, want) {
		t.Fatalf("2-channel rotated: %v, want %v", rgb.X, want)
	}
	rgb.Rotate180()
	if !slices.Equal(rgb.X, orig) {
		t.Fatal("rotating twice is not the identity")
	}
	d := synth(uniform(2, 2))
	d.X[1] = 100 // sample 0 pixel (0,1)
	c, err := d.Client(Shard{Indices: []int{0}, Rotated: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.X[2] != 100 || d.X[1] != 100 {
		t.Fatalf("Client rotated: %v (parent %v)", c.X, d.X[:4])
	}
	rot := d.Clone()
	rot.Rotate180()
	if rot.X[2] != 100 || d.X[1] != 100 || rot.Len() != d.Len() || rot.Name != d.Name {
		t.Fatalf("rotated clone: %v (parent %v)", rot.X[:4], d.X[:4])
	}
}

func TestBatches(t *testing.T) {
	d := synth(uniform(5, 10)) // 50 samples, pixel = index
	f := d.Features()
	it, err := NewBatches(d, 8, seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	if it.Size() != 8 {
		t.Fatalf("Size() = %d", it.Size())
	}
	x, y := make([]float32, 8*f), make([]int32, 8)
	var orders [][]int
	for epoch := range 3 {
		var order, sizes []int
		for {
			n, err := it.Next(x, y)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
			sizes = append(sizes, n)
			for k := range n {
				i := int(x[k*f])
				if d.Y[i] != y[k] || x[k*f+3] != float32(i) {
					t.Fatalf("batch sample %d: label %d for sample %d", k, y[k], i)
				}
				order = append(order, i)
			}
		}
		if !slices.Equal(sizes, []int{8, 8, 8, 8, 8, 8, 2}) || it.Epoch() != epoch+1 {
			t.Fatalf("epoch %d: batch sizes %v, Epoch() %d", epoch, sizes, it.Epoch())
		}
		sorted := slices.Sorted(slices.Values(order))
		for i, v := range sorted {
			if v != i {
				t.Fatalf("epoch %d does not visit every sample once: %v", epoch, sorted)
			}
		}
		orders = append(orders, order)
	}
	if slices.Equal(orders[0], orders[1]) || slices.Equal(orders[1], orders[2]) {
		t.Fatal("epochs repeat the same order")
	}
	// Same seed, same batches.
	again, _ := NewBatches(d, 8, seeded(1))
	for k := range 4 {
		n, _ := again.Next(x, y)
		if n != 8 || int(x[0]) != orders[0][k*8] {
			t.Fatalf("same seed: batch %d starts with %v, want %d", k, x[0], orders[0][k*8])
		}
	}
	// No allocation per batch, epoch boundaries included.
	if allocs := testing.AllocsPerRun(100, func() { _, _ = it.Next(x, y) }); allocs != 0 {
		t.Fatalf("Next allocates %v times per call", allocs)
	}
	if _, err := it.Next(x[:len(x)-1], y); !errors.Is(err, ErrInvalid) {
		t.Errorf("short x: %v", err)
	}
	if _, err := it.Next(x, y[:7]); !errors.Is(err, ErrInvalid) {
		t.Errorf("short y: %v", err)
	}
	for name, err := range map[string]error{
		"size 0":  errOfBatches(NewBatches(d, 0, seeded(1))),
		"nil rng": errOfBatches(NewBatches(d, 4, nil)),
		"empty":   errOfBatches(NewBatches(&Dataset{Shape: [3]int{1, 1, 1}, Classes: 1}, 4, seeded(1))),
		"nil":     errOfBatches(NewBatches(nil, 4, seeded(1))),
	} {
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func errOfBatches(_ *Batches, err error) error { return err }
