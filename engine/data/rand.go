package data

import "math/rand/v2"

// NewRand returns the seeded generator `peerlearn data -seed SEED` splits
// with (PCG, stream constant 0xda7a). Tools that partition with it from the
// same seed get the partition that command prints.
func NewRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0xda7a)) }
