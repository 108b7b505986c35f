//go:build torch

package gpu

import (
	"testing"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/sim/dflsim"
	"github.com/peerlearn/peerlearn/theory/topology"
)

// TestDflsimCompanions runs dflsim's synchronous rounds on a ring of eight
// peers, every other one training on libtorch through learn's NewBackend
// hook, with DecHW aggregation (so the Hessian diagonal runs on both
// engines), and requires the same accuracy, within 2 points, as the same
// population all on the pure-Go engine, and at least 85%.
func TestDflsimCompanions(t *testing.T) {
	a := mustArch("mlp")
	train, test := &data.Dataset{Name: "synthetic", Shape: nn.MNISTInput, Classes: 10}, &data.Dataset{Name: "synthetic", Shape: nn.MNISTInput, Classes: 10}
	if ds, err := mnist(); err != nil {
		t.Fatal(err)
	} else if ds != nil {
		sub, err := ds[0].Subset(seq(16000))
		if err != nil {
			t.Fatal(err)
		}
		tsub, err := ds[1].Subset(seq(2000))
		if err != nil {
			t.Fatal(err)
		}
		train, test = sub, tsub
	} else {
		train.X, train.Y = noisy(31, a, 8000, 3)
		test.X, test.Y = noisy(32, a, 2000, 3)
	}
	if err := setThreads(); err != nil {
		t.Fatal(err)
	}
	pool := dflsim.NewPool(2)
	defer pool.Close()
	ring, err := topology.Ring(8)
	if err != nil {
		t.Fatal(err)
	}
	built := 0
	run := func(companions bool) dflsim.Point {
		cfg := learn.DefaultConfig()
		cfg.Arch, cfg.Aggregator, cfg.Batch = a, "dechw", 32
		cfg.HessianSamples = 256
		cfg.Init = learn.Init{Mode: learn.InitCommon, CommonSeed: 9}
		b, err := dflsim.Population{Train: train, Partition: "dirichlet:10", N: 8, Seed: 3, Config: cfg,
			Edit: func(i int, c *learn.Config) {
				if companions && i%2 == 0 {
					mk := Factory(Config{Device: "cpu"})
					c.NewBackend = func(a nn.Arch, o nn.Optimizer) (nn.Backend, error) {
						built++
						return mk(a, o)
					}
				}
			}}.Build()
		if err != nil {
			t.Fatal(err)
		}
		pts, err := dflsim.SyncRun{Peers: b.Peers, Graph: ring, Rounds: 4, Eval: dflsim.Eval{Test: test}, Pool: pool}.Run()
		if err != nil {
			t.Fatal(err)
		}
		return pts[len(pts)-1]
	}
	mixed, pure := run(true), run(false)
	t.Logf("mixed (%d torch peers): accuracy %+v loss %+v; pure Go: accuracy %+v loss %+v", built, mixed.Acc, mixed.Loss, pure.Acc, pure.Loss)
	if built != 4 {
		t.Errorf("%d torch backends built, want 4", built)
	}
	if mixed.Acc.Mean < 0.85 || mixed.Acc.Mean < pure.Acc.Mean-0.02 {
		t.Errorf("mixed population: mean accuracy %.4f, pure-Go %.4f", mixed.Acc.Mean, pure.Acc.Mean)
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
