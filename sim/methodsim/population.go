package methodsim

import (
	"fmt"
	"math/rand/v2"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/sim/dflsim"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Population describes n learning peers on a partitioned training set.
type Population struct {
	// Train is split across the peers by Partition (data.ParseSpec, e.g.
	// "iid+rotate:0.5" for the PENS rotation clusters).
	Train     *data.Dataset
	Partition string
	N         int
	// Seed draws the partition, the peers' IDs and their seeds.
	Seed uint64
	// Config is every peer's configuration; ID and Seed are set per peer.
	Config learn.Config
}

// Peers is a built population: peer i is Peers[i], trains on Local[i]
// (its shard, rotated if Shards[i].Rotated) and is called IDs[i].
type Peers struct {
	Peers  []*learn.Peer
	Local  []*data.Dataset
	Shards []data.Shard
	IDs    []ident.Peer
	// Index maps an ID back to its peer index.
	Index map[ident.Peer]int
}

// Build partitions the data and creates the peers. IDs are dflsim's
// (dflsim.PeerID), so a population of the same seed has the same IDs
// there.
func (p Population) Build() (*Peers, error) {
	if p.Train == nil || p.N < 1 {
		return nil, fmt.Errorf("%w: population of %d peers", ErrConfig, p.N)
	}
	shards, err := data.Partition(p.Train, p.Partition, p.N, data.NewRand(p.Seed))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	seeds := rand.New(rand.NewPCG(p.Seed, 0x7365656473))
	b := &Peers{Shards: shards, Index: make(map[ident.Peer]int, p.N)}
	for i, s := range shards {
		local, err := p.Train.Client(s)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		cfg := p.Config
		cfg.ID, cfg.Seed = dflsim.PeerID(p.Seed, i), seeds.Uint64()
		peer, err := learn.NewPeer(cfg, local)
		if err != nil {
			return nil, fmt.Errorf("peer %d: %w", i, err)
		}
		b.Peers = append(b.Peers, peer)
		b.Local = append(b.Local, local)
		b.IDs = append(b.IDs, cfg.ID)
		b.Index[cfg.ID] = i
	}
	return b, nil
}

// Clusters returns the true cluster of every peer: 1 for a rotated
// shard, 0 otherwise (the PENS thesis' two clusters).
func (b *Peers) Clusters() map[ident.Peer]int {
	m := make(map[ident.Peer]int, len(b.IDs))
	for i, id := range b.IDs {
		if b.Shards[i].Rotated {
			m[id] = 1
		} else {
			m[id] = 0
		}
	}
	return m
}

// N returns the number of peers.
func (b *Peers) N() int { return len(b.Peers) }
