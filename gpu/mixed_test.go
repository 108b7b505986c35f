//go:build torch

package gpu

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/types/ident"
)

// TestMixedPeers trains six peers on a ring, three on libtorch and three
// on the pure-Go engine, from a common initial model. Shards are label-
// skewed: 70% of peer i's samples come from its five home classes
// 2i..2i+4 (mod 10), the rest from the other five. After every 20 local
// steps a peer averages with its two ring neighbours (aggregate.DecAvg).
// Every peer must reach 90% test accuracy on all ten classes (MNIST when
// PEERLEARN_DATA is set, else a synthetic task), and a torch peer's
// parameters must give the same accuracy when the pure-Go engine
// evaluates them (one layout).
func TestMixedPeers(t *testing.T) {
	// 20 rounds of 20 local steps of 32 samples; 70% of a peer's shard
	// comes from its five home classes.
	const peers, shard, batch, perPeer, rounds, steps, home = 6, 2000, 32, 5, 20, 20, 70
	a := mustArch("mlp")
	f := a.Input[0] * a.Input[1] * a.Input[2]
	var poolX, testX []float32
	var poolY, testY []int32
	if ds, err := mnist(); err != nil {
		t.Fatal(err)
	} else if ds != nil {
		poolX, poolY = ds[0].X, ds[0].Y
		testX, testY = ds[1].X, ds[1].Y
		t.Logf("MNIST: %d peers x %d label-skewed training samples, %d test samples", peers, shard, len(testY))
	} else {
		// Noise of 3x the pixel range (clamped), so that the task takes
		// training: one epoch on all classes gives ~90%.
		poolX, poolY = noisy(21, a, 20000, 3)
		testX, testY = noisy(22, a, 2000, 3)
		t.Logf("synthetic task (PEERLEARN_DATA unset): %d peers x %d label-skewed training samples", peers, shard)
	}
	byClass := make([][]int, a.Classes)
	for i, y := range poolY {
		byClass[y] = append(byClass[y], i)
	}
	shards := make([][]int, peers) // indices into the pool
	take := func(i, c, n int) {
		if len(byClass[c]) < n {
			t.Fatalf("class %d: %d samples left, want %d", c, len(byClass[c]), n)
		}
		shards[i] = append(shards[i], byClass[c][:n]...)
		byClass[c] = byClass[c][n:]
	}
	for i := range peers {
		for k := range a.Classes {
			c := (2*i + k) % a.Classes
			if k < perPeer {
				take(i, c, shard*home/100/perPeer)
			} else {
				take(i, c, shard*(100-home)/100/(a.Classes-perPeer))
			}
		}
	}
	if err := setThreads(); err != nil {
		t.Fatal(err)
	}
	tag, err := learn.ArchTag(a)
	if err != nil {
		t.Fatal(err)
	}

	// A common initial model, as if a coordinator had sent it.
	init, err := nn.NewModel(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := init.Init(rand.New(rand.NewPCG(1, 2)), nn.HeNormal, nil); err != nil {
		t.Fatal(err)
	}
	backends := make([]nn.Backend, peers)
	for i := range backends {
		opt := mustSGD(0.05, 0.9, 0)
		if i%2 == 0 {
			b, err := New(a, opt, Config{Device: "cpu"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			backends[i] = b
		} else {
			m, err := nn.NewModel(a)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := nn.NewTrainer(m, opt)
			if err != nil {
				t.Fatal(err)
			}
			backends[i] = tr
		}
		if err := backends[i].SetParams(init.Params()); err != nil {
			t.Fatal(err)
		}
	}

	m0, err := backends[0].Evaluate(testX, testY)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("initial model: test accuracy %.4f", m0.Accuracy)

	published := make([][]float32, peers)
	spent := make([]time.Duration, 2) // training time: torch, go
	bx, by := make([]float32, batch*f), make([]int32, batch)
	rngs := make([]*rand.Rand, peers)
	for i := range rngs {
		rngs[i] = rand.New(rand.NewPCG(uint64(i), 77))
	}
	for r := range rounds {
		for i, b := range backends {
			start := time.Now()
			for range steps { // minibatches drawn with replacement from the shard
				for k := range batch {
					s := shards[i][rngs[i].IntN(shard)]
					copy(bx[k*f:(k+1)*f], poolX[s*f:(s+1)*f])
					by[k] = poolY[s]
				}
				if _, err := b.TrainBatch(bx, by); err != nil {
					t.Fatalf("round %d peer %d: %v", r, i, err)
				}
			}
			spent[i%2] += time.Since(start)
			published[i] = params(t, b)
		}
		if testing.Verbose() && r%5 == 4 {
			m, err := backends[1].Evaluate(testX, testY)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("round %d: peer 1 before aggregation: test accuracy %.4f", r, m.Accuracy)
		}
		// Ring aggregation with DecAvg over the closed neighbourhood.
		for i, b := range backends {
			contrib := func(j int) aggregate.Contribution {
				return aggregate.Contribution{From: ident.PeerFromPublicKey([]byte{byte(j)}), Arch: tag,
					Params: published[j], DataSize: shard}
			}
			out := make([]float32, len(published[i]))
			rep, err := aggregate.DecAvg{}.Aggregate(contrib(i),
				[]aggregate.Contribution{contrib((i + 1) % peers), contrib((i + peers - 1) % peers)}, out)
			if err != nil || rep.Used != 3 {
				t.Fatalf("round %d peer %d: aggregation used %d models: %v", r, i, rep.Used, err)
			}
			if err := b.SetParams(out); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("training: torch peers %v, pure-Go peers %v", spent[0].Round(time.Millisecond), spent[1].Round(time.Millisecond))

	goEval, err := nn.NewModel(a)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range backends {
		m, err := b.Evaluate(testX, testY)
		if err != nil {
			t.Fatal(err)
		}
		kind := "go"
		if i%2 == 0 {
			kind = "torch"
		}
		t.Logf("peer %d (%s): test loss %.4f accuracy %.4f", i, kind, m.Loss, m.Accuracy)
		if m.Accuracy < 0.90 {
			t.Errorf("peer %d (%s): accuracy %.4f, want >= 0.90", i, kind, m.Accuracy)
		}
		if i%2 != 0 {
			continue
		}
		// The torch peer's parameters, evaluated by the pure-Go engine.
		if err := goEval.SetParams(params(t, b)); err != nil {
			t.Fatal(err)
		}
		g, err := goEval.Evaluate(testX, testY, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := g.Accuracy - m.Accuracy; diff > 1e-4 || diff < -1e-4 {
			t.Errorf("peer %d: pure-Go evaluation of its parameters %.4f, torch %.4f", i, g.Accuracy, m.Accuracy)
		}
	}
}
