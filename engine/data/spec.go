package data

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/peerlearn/peerlearn/types/partition"
)

// Spec is a parsed partition spec: partition.Spec, whose grammar and
// canonical form (String) it uses, plus Split. The grammar lives in the
// leaf package types/partition because task IDs hash the canonical form
// and the signalling server computes them without linking this engine.
type Spec partition.Spec

// ParseSpec parses a partition spec (partition.Parse); errors wrap
// ErrSpec.
func ParseSpec(s string) (Spec, error) {
	p, err := partition.Parse(s)
	return Spec(p), err
}

// String returns the spec in canonical form (partition.Spec.String),
// which ParseSpec reads back.
func (s Spec) String() string { return partition.Spec(s).String() }

// Split partitions d across clients as the spec says, then marks the
// rotated clients (if any) with the same rng.
func (s Spec) Split(d *Dataset, clients int, rng *rand.Rand) ([]Shard, error) {
	var shards []Shard
	var err error
	switch s.Kind {
	case "iid":
		shards, err = IID(d, clients, rng)
	case "dirichlet":
		shards, err = Dirichlet(d, clients, s.Param, rng)
	case "shards":
		if s.Param != math.Trunc(s.Param) || s.Param > math.MaxInt32 {
			return nil, fmt.Errorf("%w: shards per client %v", ErrInvalid, s.Param)
		}
		shards, err = LabelShards(d, clients, int(s.Param), rng)
	case "zipf":
		shards, err = Zipf(d, clients, s.Param, rng)
	default:
		return nil, fmt.Errorf("%w: partition kind %q", ErrInvalid, s.Kind)
	}
	if err != nil {
		return nil, err
	}
	if s.Rotate != 0 {
		if err := RotateClusters(shards, s.Rotate, rng); err != nil {
			return nil, err
		}
	}
	return shards, nil
}

// Partition parses spec and splits d across clients with it.
func Partition(d *Dataset, spec string, clients int, rng *rand.Rand) ([]Shard, error) {
	s, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return s.Split(d, clients, rng)
}
