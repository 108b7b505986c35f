package methodsim

import (
	"errors"
	"fmt"

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

// Build partitions the data and creates the peers, as dflsim does (the
// same shards, IDs and seeds for the same Seed), with no capacity tiers.
func (p Population) Build() (*Peers, error) {
	b, err := dflsim.Population{Train: p.Train, Partition: p.Partition, N: p.N, Seed: p.Seed, Config: p.Config}.Build()
	if errors.Is(err, dflsim.ErrConfig) {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err != nil {
		return nil, err
	}
	out := &Peers{Peers: b.Peers, Local: b.Local, Shards: b.Shards, Index: make(map[ident.Peer]int, len(b.Peers))}
	for i, peer := range b.Peers {
		id := peer.Config().ID
		out.IDs = append(out.IDs, id)
		out.Index[id] = i
	}
	return out, nil
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
