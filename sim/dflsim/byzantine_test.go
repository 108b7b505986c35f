package dflsim

import (
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/types/ident"
)

// flipBackend trains like nn.Trainer but hands back its parameters
// sign-flipped: the peer then publishes, and the MEP sends, a flipped
// model every round. It is how a Byzantine peer is put into an otherwise
// unchanged simulation.
type flipBackend struct{ *nn.Trainer }

func (b flipBackend) Params(dst []float32) error {
	if err := b.Trainer.Params(dst); err != nil {
		return err
	}
	for i := range dst {
		dst[i] = -dst[i]
	}
	return nil
}

// byzantineAccuracy runs the FedLay overlay of n peers with aggregator
// agg, where the peers in liars publish sign-flipped models. It returns
// the mean test accuracy at the end of the honest peers with fewer liars
// than honest peers among their neighbours (the robust rules' premise),
// and how many such peers there are.
func byzantineAccuracy(t *testing.T, n int, agg string, liars map[int]bool) (float64, int) {
	t.Helper()
	pool := NewPool(0)
	defer pool.Close()
	arch, err := nn.ArchFor("mlp", [3]int{1, 16, 1}, 4)
	if err != nil {
		t.Fatal(err)
	}
	cfg := learn.DefaultConfig()
	cfg.Arch, cfg.Aggregator, cfg.Batch = arch, agg, 16
	cfg.Optimizer = learn.OptimizerConfig{Name: "sgd", LR: 0.1, Momentum: 0.5}
	cfg.MEP.Period = 6
	b, err := Population{Train: synthetic(100*n, 7), Partition: "shards:3", N: n, Seed: 7, Config: cfg,
		Edit: func(i int, c *learn.Config) {
			if liars[i] {
				c.NewBackend = func(a nn.Arch, opt nn.Optimizer) (nn.Backend, error) {
					m, err := nn.NewModel(a)
					if err != nil {
						return nil, err
					}
					tr, err := nn.NewTrainer(m, opt)
					return flipBackend{tr}, err
				}
			}
		}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := asyncRun(b, pool, nil, 7).Run(); err != nil {
		t.Fatal(err)
	}
	liar := map[ident.Peer]bool{}
	for i := range liars {
		liar[b.Peers[i].Config().ID] = true
	}
	e, err := learn.NewEvaluator(arch)
	if err != nil {
		t.Fatal(err)
	}
	test := synthetic(400, 1000)
	var sum float64
	var protected int
	for i, p := range b.Peers {
		bad := 0
		for _, nb := range p.Neighbors() {
			if liar[nb.ID] {
				bad++
			}
		}
		if liars[i] || 2*bad >= len(p.Neighbors()) {
			continue
		}
		protected++
		if m, err := e.Evaluate(p.Published(), test.X, test.Y); err == nil {
			sum += m.Accuracy
		}
	}
	return sum / float64(max(protected, 1)), protected
}

// On the FedLay overlay through the MEP, 3 of 15 peers (20%) publish
// sign-flipped models (with their true claims: the MEP carries what the
// peer reports). Among the honest peers whose neighbours are mostly
// honest, plain FedLay loses much of the accuracy and the robust default
// keeps most of it. (Peers with as many liars as honest neighbours are
// outside what the rules promise, and are not counted.)
func TestAsyncByzantineMinority(t *testing.T) {
	liars := map[int]bool{2: true, 7: true, 12: true}
	clean, _ := byzantineAccuracy(t, 15, "fedlay", nil)
	plain, np := byzantineAccuracy(t, 15, "fedlay", liars)
	robust, nr := byzantineAccuracy(t, 15, aggregate.SafeDefault, liars)
	t.Logf("accuracy: no attack %.3f; under attack, peers with an honest majority around them: fedlay %.3f (%d peers), %s %.3f (%d peers)",
		clean, plain, np, aggregate.SafeDefault, robust, nr)
	if nr < 8 || plain > 0.8 || robust < 0.9 {
		t.Fatalf("fedlay %.3f (want <= 0.8), %s %.3f over %d peers (want >= 0.9 over >= 8)", plain, aggregate.SafeDefault, robust, nr)
	}
}
