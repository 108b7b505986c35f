package main

import (
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/engine/data"
)

// trainSpeed times real trainings of the spec's model: on an MNIST-shaped
// synthetic task it reports a finite positive rate, and it refuses a
// shard it cannot cut.
func TestTrainSpeed(t *testing.T) {
	syn := data.NewSynthetic(data.NewRand(1), [3]int{28, 28, 1}, 10, 0.3)
	train := syn.Draw(data.NewRand(2), 2000, syn.Cycle)
	test := syn.Draw(data.NewRand(3), 200, syn.Cycle)
	spec := liveSpec("gossip", 4, 3)
	sps, err := trainSpeed(spec, train, test, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !(sps > 0) || math.IsInf(sps, 0) {
		t.Errorf("%v samples/s", sps)
	}
	if _, err := trainSpeed(spec, train, test, 5000); err == nil {
		t.Error("5000 shards of 2000 samples: no error")
	}
}
