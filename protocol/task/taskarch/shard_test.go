package taskarch

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Shard cuts what data.Partition cuts for the spec's partition and seed;
// without n, the shard is drawn from the peer's ID; a rotated shard gets a
// rotated copy of the test set, the caller's left as it was.
func TestShardIsThePartitionsShard(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	syn := data.NewSynthetic(rng, [3]int{4, 4, 1}, 10, 0.1)
	train, test := syn.Draw(rng, 600, func(i int) int { return i % 10 }), syn.Draw(rng, 50, func(i int) int { return i % 10 })
	spec := task.DefaultSpec()
	spec.Partition = task.Partition{Parts: 6, Seed: 3, Spec: "dirichlet:0.5"}
	shards, err := data.Partition(train, spec.Partition.Spec, 6, data.NewRand(3))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := train.Client(shards[4])
	local, tested, desc, rotated, err := Shard(train, test, spec, ident.Peer{9}, 4, 6)
	if err != nil || desc != "4/6 of dirichlet:0.5" || rotated || tested != test || !slices.Equal(local.Y, want.Y) || !slices.Equal(local.X, want.X) {
		t.Fatalf("shard 4/6: %q rotated %v err %v, %d samples (want %d)", desc, rotated, err, local.Len(), want.Len())
	}
	id := ident.Peer{7, 7}
	_, _, desc, _, err = Shard(train, test, spec, id, 0, 0)
	if k := id.Seed() % 6; err != nil || desc != string(rune('0'+k))+"/6 of dirichlet:0.5" {
		t.Fatalf("drawn from the ID: %q %v, want shard %d", desc, err, k)
	}
	if _, _, _, _, err := Shard(train, test, spec, id, 6, 6); !errors.Is(err, ErrData) {
		t.Fatalf("shard 6 of 6: %v", err)
	}

	spec.Partition.Spec = "iid+rotate:1"
	before := slices.Clone(test.X)
	_, tested, desc, rotated, err = Shard(train, test, spec, id, 1, 6)
	if err != nil || !rotated || desc != "1/6 of iid+rotate:1 (rotated)" || tested == test || slices.Equal(tested.X, before) {
		t.Fatalf("a rotated shard: %q rotated %v err %v", desc, rotated, err)
	}
	if !slices.Equal(test.X, before) {
		t.Fatal("the caller's test set was rotated")
	}
}
