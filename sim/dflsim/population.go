package dflsim

import (
	"fmt"
	"math/rand/v2"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/protocol/mep"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Population describes n peers on a partitioned training set.
type Population struct {
	// Train is split across the peers by Partition (data.ParseSpec).
	Train     *data.Dataset
	Partition string
	N         int
	// Seed draws the partition, the peers' IDs and seeds, and the tiers.
	Seed uint64
	// Config is every peer's configuration; ID and Seed are set per
	// peer, and MEP.Period and MEP.Tier when Tiers is set.
	Config learn.Config
	// Tiers assigns FedLay's capacity tiers (mep.AssignTiers: 60% medium,
	// 20% high at 2/3 of the period and training time, 20% low at 2x) on
	// Config.MEP.Period as the medium period.
	Tiers bool
	// Edit, if not nil, adjusts peer i's configuration last.
	Edit func(i int, c *learn.Config)
	// Holdout, when above 0, keeps that share (below 1) of the shard of
	// every peer Hold approves (nil: every peer) out of its training
	// (HoldOut): Built.Held[i] is it, Local[i] the rest. What for: the
	// neighbourhood check scores models on data the peer never trained
	// on (Health.Data).
	Holdout float64
	Hold    func(i int) bool
}

// Built is a population ready to run: peer i is Peers[i] and trains on
// Local[i], its shard Shards[i] of the training set (less Held[i]).
type Built struct {
	Peers  []*learn.Peer
	Local  []*data.Dataset
	Shards []data.Shard
	// Held[i] is what peer i held out of its shard (Population.Holdout),
	// nil when it holds nothing out.
	Held []*data.Dataset
	// TrainScale is each peer's training-time factor (1, or the tier's).
	TrainScale []float64
	Tiers      []mep.Tier
}

// PeerID is the overlay ID of peer i of a population seeded with seed.
func PeerID(seed uint64, i int) ident.Peer {
	return ident.PeerFromPublicKey(fmt.Appendf(nil, "dflsim seed %d peer %d", seed, i))
}

// Build partitions the data and creates the peers.
func (p Population) Build() (*Built, error) {
	if p.Train == nil || p.N < 1 || !(p.Holdout >= 0 && p.Holdout < 1) {
		return nil, fmt.Errorf("%w: population of %d peers, hold-out share %v", ErrConfig, p.N, p.Holdout)
	}
	rng := data.NewRand(p.Seed)
	shards, err := data.Partition(p.Train, p.Partition, p.N, rng)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	var caps []mep.Capacity
	if p.Tiers {
		if caps, err = mep.AssignTiers(p.N, p.Config.MEP.Period, p.Seed); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	seeds := rand.New(rand.NewPCG(p.Seed, 0x7365656473))
	b := &Built{Shards: shards, Held: make([]*data.Dataset, len(shards))}
	for i, s := range shards {
		local, err := p.Train.Client(s)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		if p.Holdout > 0 && (p.Hold == nil || p.Hold(i)) {
			if local, b.Held[i], err = HoldOut(local, p.Holdout); err != nil {
				return nil, fmt.Errorf("peer %d: %w", i, err)
			}
		}
		cfg := p.Config
		cfg.ID, cfg.Seed = PeerID(p.Seed, i), seeds.Uint64()
		scale := 1.0
		if p.Tiers {
			cfg.MEP.Period, cfg.MEP.Tier, scale = caps[i].Period, caps[i].Tier, caps[i].TrainScale
		}
		tier := cfg.MEP.Tier
		if p.Edit != nil {
			p.Edit(i, &cfg)
		}
		peer, err := learn.NewPeer(cfg, local)
		if err != nil {
			return nil, fmt.Errorf("peer %d: %w", i, err)
		}
		b.Peers = append(b.Peers, peer)
		b.Local = append(b.Local, local)
		b.TrainScale = append(b.TrainScale, scale)
		b.Tiers = append(b.Tiers, tier)
	}
	return b, nil
}
