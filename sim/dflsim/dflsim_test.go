package dflsim

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/sim/simnet"
	"github.com/peerlearn/peerlearn/theory/topology"
)

// synthetic returns n samples of a learnable 4-class task of 16 features
// (data.Synthetic, noise 1), labels in turn.
func synthetic(n int, seed uint64) *data.Dataset {
	tpl := rand.New(rand.NewPCG(99, 0x74706c)) // the same templates for train and test
	s := data.NewSynthetic(tpl, [3]int{1, 16, 1}, 4, 1)
	return s.Draw(rand.New(rand.NewPCG(seed, 0x73796e)), n, s.Cycle)
}

func population(t *testing.T, n int, seed uint64, agg string) *Built {
	t.Helper()
	arch, err := nn.ArchFor("mlp", [3]int{1, 16, 1}, 4)
	if err != nil {
		t.Fatal(err)
	}
	cfg := learn.DefaultConfig()
	cfg.Arch, cfg.Aggregator, cfg.Batch = arch, agg, 16
	cfg.Optimizer = learn.OptimizerConfig{Name: "sgd", LR: 0.1, Momentum: 0.5}
	cfg.MEP.Period = 6
	b, err := Population{Train: synthetic(100*n, seed), Partition: "shards:3", N: n, Seed: seed, Config: cfg, Tiers: true}.Build()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func last(ps []Point) Point { return ps[len(ps)-1] }

func asyncRun(b *Built, pool *Pool, g *topology.Graph, seed uint64) AsyncRun {
	return AsyncRun{
		Peers: b.Peers, TrainScale: b.TrainScale, Tick: time.Second, TrainTime: 2 * time.Second,
		Duration: 150 * time.Second, Latency: simnet.Fixed(50 * time.Millisecond), Graph: g,
		Overlay: OverlayConfig{Spaces: 2, Tick: time.Second, JoinBatch: 4, JoinLimit: time.Minute},
		Eval:    Eval{Test: synthetic(400, 1000)}, EvalEvery: 30 * time.Second, RoundUnit: 6 * time.Second,
		Seed: seed, Pool: pool,
	}
}

// Peers on the FedLay overlay learn the task through the MEP; the overlay
// is correct; the same seed gives the same measurements.
func TestAsyncOverlayLearnsDeterministically(t *testing.T) {
	pool := NewPool(0)
	defer pool.Close()
	run := func() *AsyncResult {
		res, err := asyncRun(population(t, 12, 3, "fedlay"), pool, nil, 3).Run()
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(), run()
	end := last(a.Points)
	t.Logf("start %v, %d events, overlay %d msgs %d B correct %.2f; end %+v", a.Start, a.Events, a.OverlayMessages, a.OverlayBytes, a.Correctness, end)
	if end.Acc.Mean < 0.85 || a.Points[0].Peers != 0 || end.Peers != 12 || a.Correctness != 1 || a.OverlayBytes == 0 || end.ControlBytes == 0 || end.ModelBytes == 0 {
		t.Fatalf("result %+v", a)
	}
	for i := range a.Points {
		if a.Points[i] != b.Points[i] {
			t.Fatalf("point %d differs between runs: %+v vs %+v", i, a.Points[i], b.Points[i])
		}
	}
}

// On a static graph, a peer that joins late catches up with the others;
// AfterTrain sees every applied training of every peer, as it is applied.
func TestAsyncStaticLateJoiner(t *testing.T) {
	pool := NewPool(0)
	defer pool.Close()
	b := population(t, 10, 4, "fedlay")
	g, err := topology.RandomRegular(10, 4, rand.New(rand.NewPCG(4, 0)))
	if err != nil {
		t.Fatal(err)
	}
	r := asyncRun(b, pool, g, 4)
	r.Joins = []Join{{Peer: 9, At: 120 * time.Second}}
	trained := make([]int, 10)
	r.AfterTrain = func(i int) {
		trained[i]++
		if m := b.Peers[i].Metrics(); m.Rounds+m.RoundsFailed != trained[i] {
			t.Errorf("peer %d: AfterTrain call %d, metrics %+v", i, trained[i], m)
		}
	}
	res, err := r.Run()
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range b.Peers {
		if m := p.Metrics(); trained[i] == 0 || trained[i] != m.Rounds+m.RoundsFailed {
			t.Errorf("peer %d: %d AfterTrain calls, metrics %+v", i, trained[i], m)
		}
	}
	m := b.Peers[9].Metrics()
	e, _ := learn.NewEvaluator(b.Peers[9].Config().Arch)
	test := synthetic(400, 1000)
	joiner, err := e.Evaluate(b.Peers[9].Published(), test.X, test.Y)
	if err != nil {
		t.Fatal(err)
	}
	end := last(res.Points)
	t.Logf("joiner %+v acc %.3f; network %+v", m, joiner.Accuracy, end.Acc)
	if m.Adopted != 1 || m.Rounds < 1 || joiner.Accuracy < end.Acc.Mean-0.1 {
		t.Fatalf("joiner metrics %+v, accuracy %.3f, network %+v", m, joiner.Accuracy, end.Acc)
	}
}

// Synchronous rounds on a ring learn; FedAvg with the same local
// training does at least as well.
func TestSyncAndFedAvg(t *testing.T) {
	pool := NewPool(0)
	defer pool.Close()
	ring, _ := topology.Ring(8)
	ev := Eval{Test: synthetic(400, 1000), Peers: 4}
	sync, err := SyncRun{Peers: population(t, 8, 5, "decavg").Peers, Graph: ring, Rounds: 10, Eval: ev, Pool: pool}.Run()
	if err != nil {
		t.Fatal(err)
	}
	fed, _, err := FedAvgRun{Clients: population(t, 8, 5, "decavg").Peers, Rounds: 10, Eval: ev, Pool: pool}.Run()
	if err != nil {
		t.Fatal(err)
	}
	s, f := last(sync), last(fed)
	t.Logf("ring %+v; fedavg %+v", s.Acc, f.Acc)
	if len(sync) != 11 || s.Peers != 4 || f.Peers != 1 || s.Acc.Mean < 0.8 || f.Acc.Mean < s.Acc.Mean-0.02 {
		t.Fatalf("ring %d points, last %+v; fedavg last %+v", len(sync), s, f)
	}
}
