package main

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/sim/dflsim"
	"github.com/peerlearn/peerlearn/theory/topology"
)

// declaredRounds and declaredPeers size the owner's yardstick for a
// declared model: as many central epochs as swarm rounds, on this many
// simulated peers.
const declaredRounds, declaredPeers = 40, 4

// centralVsSwarm trains architecture a centrally on train for
// declaredRounds epochs, and on declaredPeers simulated peers (IID
// shards, a complete graph, mean aggregation, one local epoch a round)
// for as many rounds, with the same optimiser and batch; it returns the
// central model's test metrics and the peers' test accuracies.
func centralVsSwarm(t *testing.T, a nn.Arch, train, test *data.Dataset) (nn.Metrics, learn.Summary) {
	t.Helper()
	central := trainCentral(t, a, train, test, declaredRounds)
	cfg := learn.DefaultConfig()
	cfg.Arch, cfg.Batch, cfg.LocalEpochs, cfg.Aggregator, cfg.Optimizer = a, 32, 1, "mean", declaredOptimizer
	b, err := dflsim.Population{Train: train, Partition: "iid", N: declaredPeers, Seed: 3, Config: cfg}.Build()
	if err != nil {
		t.Fatal(err)
	}
	g, err := topology.Complete(declaredPeers)
	if err != nil {
		t.Fatal(err)
	}
	pool := dflsim.NewPool(2)
	defer pool.Close()
	pts, err := dflsim.SyncRun{Peers: b.Peers, Graph: g, Rounds: declaredRounds, EvalEvery: declaredRounds, Pool: pool,
		Eval: dflsim.Eval{Test: test, Model: dflsim.Trained}}.Run()
	if err != nil {
		t.Fatal(err)
	}
	return central, pts[len(pts)-1].Acc
}

// declaredOptimizer is the optimiser of the declared-model examples,
// central and distributed alike.
var declaredOptimizer = learn.OptimizerConfig{Name: "sgd", LR: 0.05, Momentum: 0.9}

// trainCentral trains a centrally on train for epochs epochs (batch 32,
// declaredOptimizer, seeded) and returns its test metrics.
func trainCentral(t *testing.T, a nn.Arch, train, test *data.Dataset, epochs int) nn.Metrics {
	t.Helper()
	model, err := nn.NewModel(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := model.Init(rand.New(rand.NewPCG(1, 1)), nn.HeNormal, nil); err != nil {
		t.Fatal(err)
	}
	o, err := declaredOptimizer.New()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := nn.NewTrainer(model, o)
	if err != nil {
		t.Fatal(err)
	}
	shuffle := rand.New(rand.NewPCG(2, 2))
	for range epochs {
		if _, err := tr.TrainEpoch(context.Background(), train.X, train.Y, nn.EpochConfig{Batch: 32, Shuffle: shuffle}); err != nil {
			t.Fatal(err)
		}
	}
	central, err := tr.Evaluate(test.X, test.Y)
	if err != nil {
		t.Fatal(err)
	}
	return central
}
