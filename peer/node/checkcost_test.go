package node

import (
	"math/rand/v2"
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/ident"
)

// BenchmarkRoundChecks times one round of a peer of the default task
// (MNIST's MLP, the recipe's configuration: one epoch a round) on a
// shard of make demo's size (7,500 synthetic samples: MNIST in 8 parts)
// with 8 neighbours: its local training, the aggregation of their
// models and its checks, as it runs by default (checks=default) and with
// the neighbourhood check and the drift test's suspension
// (checks=health+suspend, `peerlearn peer -health -suspend`: the check
// scores every neighbour's model on HealthSamples of the peer's own
// data each round). scripts/bench-go.sh reports their ratio: what the
// checks add to a volunteer's CPU per round.
func BenchmarkRoundChecks(b *testing.B) {
	const roundChecksShard = 7500
	spec := task.DefaultSpec()
	spec.Name = "mnist-fedlay" // the signalling server's default task
	syn := data.NewSynthetic(rand.New(rand.NewPCG(5, 5)), [3]int{28, 28, 1}, 10, 0.3)
	for _, checks := range []string{"default", "health+suspend"} {
		b.Run("checks="+checks, func(b *testing.B) {
			peers := make([]*learn.Peer, 9)
			for i := range peers {
				local := syn.Draw(rand.New(rand.NewPCG(uint64(i), 11)), roundChecksShard, syn.Cycle)
				cfg, err := LearnerConfig(spec, ident.Peer{0xc0, byte(i)}, local, fedlayTick)
				if err != nil {
					b.Fatal(err)
				}
				if checks != "default" {
					HealthOn(&cfg, local.Classes)
					if err := SuspendOn(&cfg); err != nil {
						b.Fatal(err)
					}
				}
				if peers[i], err = learn.NewPeer(cfg, local); err != nil {
					b.Fatal(err)
				}
			}
			round := func(i int) {
				var nb []aggregate.Contribution
				for j, q := range peers {
					if c, ok := q.Contribution(); ok && j != i {
						nb = append(nb, c)
					}
				}
				w, err := peers[i].SyncWork(nb)
				if err != nil {
					b.Fatal(err)
				}
				w.Run()
				if err := peers[i].Finish(w); err != nil {
					b.Fatal(err)
				}
			}
			for i := range peers { // every neighbour has a model to send
				round(i)
			}
			b.ResetTimer()
			for range b.N {
				round(0)
			}
		})
	}
}
