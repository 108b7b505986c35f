package data

import (
	"fmt"
	"math/rand/v2"
)

// Batches deals a dataset's samples in shuffled minibatches into buffers
// the caller owns, epoch after epoch, allocating nothing per batch:
//
//	it, err := data.NewBatches(d, 64, rng)
//	x, y := make([]float32, 64*d.Features()), make([]int32, 64)
//	for epoch := 0; epoch < epochs; epoch++ {
//		for {
//			n, err := it.Next(x, y)
//			if err != nil { ... }
//			if n == 0 { break } // epoch over; the next call starts another
//			train(x[:n*d.Features()], y[:n])
//		}
//	}
type Batches struct {
	d     *Dataset
	size  int
	order []int
	pos   int
	epoch int
	rng   *rand.Rand
}

// NewBatches returns an iterator over d in batches of size samples, in an
// order drawn from rng and redrawn for every epoch. d must keep its samples
// while the iterator is in use (it is read, not copied).
func NewBatches(d *Dataset, size int, rng *rand.Rand) (*Batches, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, fmt.Errorf("%w: nil *rand.Rand", ErrInvalid)
	}
	if size < 1 {
		return nil, fmt.Errorf("%w: batch size %d, want at least 1", ErrInvalid, size)
	}
	if d.Len() == 0 {
		return nil, fmt.Errorf("%w: dataset %q is empty", ErrInvalid, d.Name)
	}
	b := &Batches{d: d, size: size, order: make([]int, d.Len()), rng: rng}
	for i := range b.order {
		b.order[i] = i
	}
	b.shuffle()
	return b, nil
}

func (b *Batches) shuffle() {
	b.rng.Shuffle(len(b.order), func(i, j int) { b.order[i], b.order[j] = b.order[j], b.order[i] })
}

// Size returns the batch size.
func (b *Batches) Size() int { return b.size }

// Epoch returns the number of epochs completed.
func (b *Batches) Epoch() int { return b.epoch }

// Next copies the next batch of the current epoch into x (at least
// Size()*Features() values) and y (at least Size() labels) and returns the
// number of samples written: Size(), or fewer for the last batch of an
// epoch. It returns 0 once the epoch is over and then starts a new epoch,
// in a new order, at the following call.
func (b *Batches) Next(x []float32, y []int32) (int, error) {
	f := b.d.Features()
	if len(x) < b.size*f || len(y) < b.size {
		return 0, fmt.Errorf("%w: batch buffers hold %d values and %d labels, want %d and %d", ErrInvalid, len(x), len(y), b.size*f, b.size)
	}
	if b.pos == len(b.order) {
		b.pos = 0
		b.epoch++
		b.shuffle()
		return 0, nil
	}
	n := min(b.size, len(b.order)-b.pos)
	for k, i := range b.order[b.pos : b.pos+n] {
		copy(x[k*f:(k+1)*f], b.d.X[i*f:(i+1)*f])
		y[k] = b.d.Y[i]
	}
	b.pos += n
	return n, nil
}
