package taskarch

import (
	"fmt"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Shard is the spec's recipe for one peer's training data, the same for
// a native peer, a tab and the simulator: shard k of n of the spec's
// partition of train (n 0: the spec's Parts, k drawn from the peer's ID),
// partitioned as the spec's partition and seed say. A rotated-cluster
// shard (partition "+rotate:F") is rotated, and so is the test set it is
// measured on (its own distribution's: a rotated copy, since train and
// test may be shared by the caller). It returns the shard, the test set to
// measure it on and the partition's description ("k/n of SPEC").
func Shard(train, test *data.Dataset, spec task.Spec, id ident.Peer, k, n int) (local, tested *data.Dataset, desc string, rotated bool, err error) {
	if n == 0 {
		n = spec.Partition.Parts
		k = int(id.Seed() % uint64(n))
	}
	partition := spec.Partition.Spec
	shards, err := data.Partition(train, partition, n, data.NewRand(spec.Partition.Seed))
	if err != nil {
		return nil, nil, "", false, err
	}
	if k < 0 || k >= len(shards) {
		return nil, nil, "", false, fmt.Errorf("%w: shard %d of %d", ErrData, k, len(shards))
	}
	if local, err = train.Client(shards[k]); err != nil {
		return nil, nil, "", false, err
	}
	tested = test
	if shards[k].Rotated && test != nil {
		all := make([]int, test.Len())
		for i := range all {
			all[i] = i
		}
		if tested, err = test.Subset(all); err != nil {
			return nil, nil, "", false, err
		}
		tested.Rotate180()
		partition += " (rotated)"
	}
	return local, tested, fmt.Sprintf("%d/%d of %s", k, n, partition), shards[k].Rotated, nil
}
