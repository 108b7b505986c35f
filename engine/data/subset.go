package data

import (
	"fmt"
	"slices"
)

// Validate checks that d is well formed: a positive shape and class count,
// X holding Len()*Features() values, and every label in [0, Classes).
// Partitioners call it so that a hand-built Dataset fails with an error
// rather than an index panic.
func (d *Dataset) Validate() error {
	if d == nil {
		return fmt.Errorf("%w: nil Dataset", ErrInvalid)
	}
	if d.Shape[0] < 1 || d.Shape[1] < 1 || d.Shape[2] < 1 {
		return fmt.Errorf("%w: dataset %q: shape %v", ErrInvalid, d.Name, d.Shape)
	}
	if d.Classes < 1 {
		return fmt.Errorf("%w: dataset %q: %d classes", ErrInvalid, d.Name, d.Classes)
	}
	if len(d.X) != len(d.Y)*d.Features() {
		return fmt.Errorf("%w: dataset %q: %d values for %d samples of %d features", ErrInvalid, d.Name, len(d.X), len(d.Y), d.Features())
	}
	for i, y := range d.Y {
		if y < 0 || int(y) >= d.Classes {
			return fmt.Errorf("%w: dataset %q: label[%d] = %d, want < %d", ErrLabel, d.Name, i, y, d.Classes)
		}
	}
	return nil
}

// Subset returns a new dataset holding copies of the given samples, in the
// given order (an index may repeat).
func (d *Dataset) Subset(indices []int) (*Dataset, error) {
	if d == nil {
		return nil, fmt.Errorf("%w: nil Dataset", ErrInvalid)
	}
	f := d.Features()
	if f < 1 || len(d.X) != len(d.Y)*f {
		return nil, fmt.Errorf("%w: dataset %q: %d values for %d samples of shape %v", ErrInvalid, d.Name, len(d.X), len(d.Y), d.Shape)
	}
	s := &Dataset{Name: d.Name, Shape: d.Shape, Classes: d.Classes,
		X: make([]float32, 0, len(indices)*f), Y: make([]int32, 0, len(indices))}
	for _, i := range indices {
		if i < 0 || i >= d.Len() {
			return nil, fmt.Errorf("%w: index %d out of [0, %d)", ErrInvalid, i, d.Len())
		}
		x, y := d.Sample(i)
		s.X = append(s.X, x...)
		s.Y = append(s.Y, y)
	}
	return s, nil
}

// Clone returns a deep copy of d (for instance to rotate a copy of the
// test set for the rotated cluster's clients).
func (d *Dataset) Clone() *Dataset {
	c := *d
	c.X, c.Y = slices.Clone(d.X), slices.Clone(d.Y)
	return &c
}

// Client returns the dataset of one client: the shard's samples, rotated
// by 180 degrees when the shard is marked Rotated.
func (d *Dataset) Client(s Shard) (*Dataset, error) {
	c, err := d.Subset(s.Indices)
	if err != nil {
		return nil, err
	}
	if s.Rotated {
		c.Rotate180()
	}
	return c, nil
}

// Rotate180 rotates every image in place by 180 degrees: pixel (r, c)
// moves to (H-1-r, W-1-c), channels kept in order. Doing it twice is the
// identity. This is the feature skew of the two-cluster setting (PENS:
// one cluster sees its images upside down).
func (d *Dataset) Rotate180() {
	ch := d.Shape[2]
	f := d.Features()
	if f == 0 {
		return
	}
	for start := 0; start+f <= len(d.X); start += f {
		img := d.X[start : start+f]
		for i, j := 0, f-ch; i < j; i, j = i+ch, j-ch {
			for k := range ch {
				img[i+k], img[j+k] = img[j+k], img[i+k]
			}
		}
	}
}

// Hist returns the number of samples of each label (labels outside
// [0, Classes) are not counted).
func (d *Dataset) Hist() []int {
	return histogram(d, nil)
}

// histogram counts labels of the given samples, or of all when indices is nil.
func histogram(d *Dataset, indices []int) []int {
	h := make([]int, max(d.Classes, 0))
	count := func(y int32) {
		if y >= 0 && int(y) < len(h) {
			h[y]++
		}
	}
	if indices == nil {
		for _, y := range d.Y {
			count(y)
		}
		return h
	}
	for _, i := range indices {
		count(d.Y[i])
	}
	return h
}
