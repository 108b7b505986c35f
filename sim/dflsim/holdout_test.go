package dflsim

import (
	"errors"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
)

// TestHoldOut: the held-out part takes floor(n*frac) of each class's n
// samples, the two parts together are the shard, sample for sample, a
// tiny shard still holds one out, a one-sample shard is not split, and a
// share outside (0, 1) is refused.
func TestHoldOut(t *testing.T) {
	d := &data.Dataset{Shape: [3]int{1, 1, 1}, Classes: 3}
	for i := range 23 {
		y := int32(0) // 12 of class 0, 8 of class 1, 3 of class 2
		switch {
		case i%3 == 1:
			y = 1
		case i%3 == 2 && i < 9:
			y = 2
		}
		d.X, d.Y = append(d.X, float32(i)), append(d.Y, y)
	}
	train, held, err := HoldOut(d, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{3, 2, 0}; !slices.Equal(d.Hist(), []int{12, 8, 3}) || !slices.Equal(held.Hist(), want) {
		t.Errorf("held-out classes %v of %v, want %v of [12 8 3]", held.Hist(), d.Hist(), want)
	}
	all := append(slices.Clone(train.X), held.X...)
	slices.Sort(all)
	if !slices.Equal(all, d.X) || train.Len()+held.Len() != d.Len() {
		t.Errorf("train %v + held %v is not the shard %v", train.X, held.X, d.X)
	}
	tiny := &data.Dataset{Shape: [3]int{1, 1, 1}, Classes: 3, X: []float32{0, 1}, Y: []int32{0, 1}}
	if train, held, err = HoldOut(tiny, 0.2); err != nil || train.Len() != 1 || held.Len() != 1 || held.X[0] != 1 {
		t.Errorf("two samples: train %v held %v, %v; want one each, the last held", train, held, err)
	}
	one := &data.Dataset{Shape: [3]int{1, 1, 1}, Classes: 3, X: []float32{0}, Y: []int32{0}}
	if train, held, err = HoldOut(one, 0.2); err != nil || train != one || held != one {
		t.Errorf("one sample: %v %v %v; want it unsplit", train, held, err)
	}
	for _, f := range []float64{0, 1, -0.1} {
		if _, _, err := HoldOut(d, f); !errors.Is(err, ErrConfig) {
			t.Errorf("share %v: %v, want ErrConfig", f, err)
		}
	}
}

// TestPopulationHoldout: only the peers Hold approves hold out, their
// training set and held-out part together are their shard, and a share
// of 1 is refused.
func TestPopulationHoldout(t *testing.T) {
	arch, err := nn.ArchFor("mlp", [3]int{1, 16, 1}, 4)
	if err != nil {
		t.Fatal(err)
	}
	cfg := learn.DefaultConfig()
	cfg.Arch = arch
	pop := Population{Train: synthetic(400, 3), Partition: "shards:3", N: 4, Seed: 3, Config: cfg, Holdout: 0.2, Hold: func(i int) bool { return i != 1 }}
	b, err := pop.Build()
	if err != nil {
		t.Fatal(err)
	}
	for i := range b.Peers {
		switch {
		case i == 1 && (b.Held[i] != nil || b.Local[i].Len() != b.Shards[i].Len()):
			t.Errorf("peer 1 (not held): held %v, %d of %d samples to train on", b.Held[i], b.Local[i].Len(), b.Shards[i].Len())
		case i != 1 && (b.Held[i] == nil || b.Held[i].Len() == 0 || b.Local[i].Len()+b.Held[i].Len() != b.Shards[i].Len()):
			t.Errorf("peer %d: held %v, %d to train on, shard %d", i, b.Held[i], b.Local[i].Len(), b.Shards[i].Len())
		}
	}
	pop.Holdout = 1
	if _, err := pop.Build(); !errors.Is(err, ErrConfig) {
		t.Errorf("hold-out share 1: %v, want ErrConfig", err)
	}
}
