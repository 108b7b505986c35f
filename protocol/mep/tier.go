package mep

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Tier is a capacity tier of FedLay's heterogeneous-client setting.
type Tier uint8

const (
	// TierMedium: 60% of peers; period P, training time x1.
	TierMedium Tier = 1
	// TierHigh: 20% of peers; period and training time 2/3 of medium.
	TierHigh Tier = 2
	// TierLow: 20% of peers; period and training time 2x medium.
	TierLow Tier = 3
)

func (t Tier) valid() bool { return t >= TierMedium && t <= TierLow }

// String names the tier.
func (t Tier) String() string {
	switch t {
	case TierMedium:
		return "medium"
	case TierHigh:
		return "high"
	case TierLow:
		return "low"
	}
	return fmt.Sprintf("Tier(%d)", uint8(t))
}

// Scale is the tier's factor on period and training time: 1, 2/3 or 2.
func (t Tier) Scale() float64 {
	switch t {
	case TierHigh:
		return 2.0 / 3
	case TierLow:
		return 2
	}
	return 1
}

// Period is the tier's period for a medium period p, rounded to whole
// ticks and at least 1.
func (t Tier) Period(p int) int {
	switch t {
	case TierHigh:
		return max(1, (2*p+1)/3)
	case TierLow:
		return 2 * p
	}
	return p
}

// Capacity is one peer's tier with its period and training-time factor.
type Capacity struct {
	Tier Tier
	// Period is T in ticks.
	Period int
	// TrainScale multiplies the medium tier's training time.
	TrainScale float64
}

// AssignTiers gives n peers their tiers as in FedLay's evaluation:
// round(n/5) high, round(n/5) low, the rest (~60%) medium, placed in an
// order drawn from seed. period is the medium tier's period in ticks.
// The same n, period and seed always give the same result.
func AssignTiers(n, period int, seed uint64) ([]Capacity, error) {
	if n < 0 || period < 1 || period > MaxPeriod/2 {
		return nil, fmt.Errorf("%w: AssignTiers(n=%d, period=%d)", ErrConfig, n, period)
	}
	fifth := (n + 2) / 5 // round(n/5); n/5 is never k+1/2
	caps := make([]Capacity, n)
	for i := range caps {
		t := TierMedium
		switch {
		case i < fifth:
			t = TierHigh
		case i < 2*fifth:
			t = TierLow
		}
		caps[i] = Capacity{Tier: t, Period: t.Period(period), TrainScale: t.Scale()}
	}
	rng := rand.New(rand.NewPCG(seed, 0x6d6570)) // local, seeded: no global randomness
	rng.Shuffle(n, func(i, j int) { caps[i], caps[j] = caps[j], caps[i] })
	return caps, nil
}

// TierOf is peer id's capacity tier when no simulator assigns tiers (a
// task with tiers on real peers): drawn from the ID alone, so every peer
// computes every neighbour's tier, and hence its period, without asking
// it. One in five IDs is high, one in five low, the rest medium, as
// AssignTiers splits a population (here in expectation). The draw hashes
// the ID with a tag of its own, so it is independent of everything else
// drawn from the ID (the overlay's coordinates, the peer's seed).
func TierOf(id ident.Peer) Tier {
	h := sha256.Sum256(append([]byte("peerlearn mep tier "), id[:]...))
	switch binary.BigEndian.Uint64(h[:8]) % 5 {
	case 0:
		return TierHigh
	case 1:
		return TierLow
	}
	return TierMedium
}

// CapacityOf is peer id's capacity (TierOf) for a medium period of
// period ticks.
func CapacityOf(id ident.Peer, period int) Capacity {
	t := TierOf(id)
	return Capacity{Tier: t, Period: t.Period(period), TrainScale: t.Scale()}
}
