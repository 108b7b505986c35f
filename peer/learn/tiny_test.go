package learn

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
)

// tinyTask is netpeer's TestPeersLearnTogether in miniature: 4 peers,
// each holding 3 of 10 classes ({0,1,2}, {3,4,5}, {6,7,8}, {9,0,1}), every
// peer the neighbour of every other, independent initial models.
func tinyTask(t testing.TB, seed uint64) (nn.Arch, []*data.Dataset, *data.Dataset) {
	t.Helper()
	const classes, features = 10, 32
	arch, err := nn.ArchFor("mlp", [3]int{1, features, 1}, classes)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 0x74696e79))
	templates := make([]float32, classes*features)
	for i := range templates {
		templates[i] = rng.Float32()
	}
	set := func(name string, n int, cls []int) *data.Dataset {
		d := &data.Dataset{Name: name, Shape: [3]int{1, features, 1}, Classes: classes}
		for k := range n {
			c := cls[k%len(cls)]
			for j := range features {
				v := templates[c*features+j] + taskNoise*(rng.Float32()-0.5)
				d.X = append(d.X, min(max(v, 0), 1))
			}
			d.Y = append(d.Y, int32(c))
		}
		return d
	}
	var local []*data.Dataset
	for i := range 4 {
		local = append(local, set(fmt.Sprintf("peer%d", i), 300, []int{(3 * i) % 10, (3*i + 1) % 10, (3*i + 2) % 10}))
	}
	return arch, local, set("test", 1000, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
}

// tinyRun runs the four peers asynchronously and returns each one's test
// accuracy and its metrics.
func tinyRun(t *testing.T, agg string, seed uint64, ticks int, edit func(*Config)) ([]float64, []Metrics) {
	arch, local, test := tinyTask(t, seed)
	peers := make([]*Peer, len(local))
	for i := range peers {
		cfg := DefaultConfig()
		cfg.ID, cfg.Arch, cfg.Seed, cfg.Aggregator = peerID(i), arch, seed*100+uint64(i), agg
		cfg.Optimizer = OptimizerConfig{Name: "sgd", LR: 0.1, Momentum: 0.5}
		cfg.Batch, cfg.LocalSteps, cfg.LocalEpochs = 16, 20, 0
		cfg.MEP.Period, cfg.MEP.OfferTimeout, cfg.MEP.TransferTimeout, cfg.MEP.JoinWait = 4, 3, 6, 4
		if edit != nil {
			edit(&cfg)
		}
		p, err := NewPeer(cfg, local[i])
		if err != nil {
			t.Fatal(err)
		}
		peers[i] = p
	}
	adj := [][]int{{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}}
	net := newAsyncNet(t, peers, adj)
	net.run(ticks)
	ev, err := NewEvaluator(arch)
	if err != nil {
		t.Fatal(err)
	}
	acc := make([]float64, len(peers))
	ms := make([]Metrics, len(peers))
	for i, p := range peers {
		m, err := ev.Evaluate(p.Published(), test.X, test.Y)
		if err != nil {
			t.Fatal(err)
		}
		acc[i], ms[i] = m.Accuracy, p.Metrics()
	}
	return acc, ms
}

// TestTinyNeighbourhood: in a neighbourhood of three whose classes are
// disjoint from ours, every neighbour's model points back against our own
// step. The direction check used to refuse them there and left the peer
// alone on its three classes: with DirectionWitnesses 0 (the old rule) the
// worst peer ended at 0.630 (seed 2) and 0.591 (seed 4) against 0.728 and
// 0.671 under plain FedLay. The default asks for 4 neighbours' models
// before refusing for direction; these runs then come out as plain
// FedLay's (the distance rules clip nothing here).
func TestTinyNeighbourhood(t *testing.T) {
	const ticks = 200
	worst := func(acc []float64) float64 { return slices.Min(acc) }
	for _, seed := range []uint64{2, 4} {
		plain, _ := tinyRun(t, "fedlay", seed, ticks, nil)
		robust, _ := tinyRun(t, aggregate.SafeDefault, seed, ticks, nil)
		old, _ := tinyRun(t, aggregate.SafeDefault, seed, ticks, func(c *Config) {
			c.Clip = aggregate.DefaultClipConfig()
			c.Clip.DirectionWitnesses = 0
		})
		t.Logf("seed %d: worst peer fedlay %.3f, %s %.3f, without direction witnesses %.3f",
			seed, worst(plain), aggregate.SafeDefault, worst(robust), worst(old))
		if worst(robust) < worst(plain)-0.03 {
			t.Errorf("seed %d: worst peer %.3f under %s, %.3f under fedlay", seed, worst(robust), aggregate.SafeDefault, worst(plain))
		}
		if worst(old) >= worst(plain)-0.03 {
			t.Errorf("seed %d: without witnesses the worst peer kept %.3f (fedlay %.3f): the test no longer shows the shut-out",
				seed, worst(old), worst(plain))
		}
	}
}
