package methodsim

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/protocol/gossip"
	"github.com/peerlearn/peerlearn/protocol/selection"
	"github.com/peerlearn/peerlearn/types/ident"
)

// blobs is a synthetic data set: 4 classes, 16 features, each class a
// Gaussian blob around its own centre. Rotate180 reverses the features.
func blobs(n int, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 1))
	centres := rand.New(rand.NewPCG(99, 1))
	const f, k = 16, 4
	c := make([]float32, k*f)
	for i := range c {
		c[i] = float32(centres.Float64())
	}
	d := &data.Dataset{Name: "blobs", Shape: [3]int{1, f, 1}, Classes: k}
	for i := range n {
		y := i % k
		d.Y = append(d.Y, int32(y))
		for j := range f {
			d.X = append(d.X, c[y*f+j]+float32(0.15*rng.NormFloat64()))
		}
	}
	return d
}

func tinyPeers(t *testing.T, n int, spec string) *Peers {
	t.Helper()
	arch, err := nn.ArchFor("mlp", [3]int{1, 16, 1}, 4)
	if err != nil {
		t.Fatal(err)
	}
	cfg := learn.DefaultConfig()
	cfg.Arch, cfg.Batch, cfg.LocalSteps = arch, 8, 4
	cfg.Optimizer = learn.OptimizerConfig{Name: "sgd", LR: 0.1}
	cfg.Aggregator = "mean"
	cfg.Init = learn.Init{Mode: learn.InitCommon, CommonSeed: 5}
	b, err := Population{Train: blobs(40*n, 1), Partition: spec, N: n, Seed: 3, Config: cfg}.Build()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func tinyDevices(t *testing.T, n int) ([]Device, *Links) {
	t.Helper()
	dev, err := AssignDevices(n, MobileTiers(), 2)
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewLinks(dev, 10*time.Millisecond, 100*time.Millisecond, 2)
	if err != nil {
		t.Fatal(err)
	}
	return dev, l
}

func runSelection(t *testing.T, kind selection.Kind) (*Peers, *SelectionResult, []float64) {
	t.Helper()
	pool := NewPool(2)
	defer pool.Close()
	b := tinyPeers(t, 12, "iid+rotate:0.5")
	// Like devices: no peer asks for a model before its owner has
	// trained one (it would get no answer, and time out), so every
	// selected model is averaged.
	dev, err := AssignDevices(12, []Tier{{Name: "medium", Share: 1, Speed: 300, Bandwidth: 2.5e6}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	links, err := NewLinks(dev, 10*time.Millisecond, 100*time.Millisecond, 2)
	if err != nil {
		t.Fatal(err)
	}
	clusters := b.Clusters()
	var measured []int
	res, err := SelectionRun{
		Peers: b, Devices: dev, Links: links, Rounds: 6, EvalSamples: 20, Seed: 1, Pool: pool,
		Policy: func(i int) (selection.Config, error) {
			c := selection.DefaultConfig(kind)
			c.Clusters = clusters
			c.Selected, c.Sampled, c.Samplings, c.Step1Rounds, c.Step2Selected = 1, 4, 5, 3, 3
			if kind != selection.KindPENS {
				c.Selected = 3
			}
			return c, nil
		},
		Measure: func(t int) bool { return t%2 == 0 },
		After: func(t int, models [][]float32) error {
			if len(models) != 12 || slices.ContainsFunc(models, func(m []float32) bool { return m == nil }) {
				return fmt.Errorf("round %d: models %d", t, len(models))
			}
			measured = append(measured, t)
			return nil
		},
	}.Run()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(measured, []int{0, 2, 4, 6}) {
		t.Errorf("rounds measured: %v", measured)
	}
	rot := blobs(200, 7)
	rot.Rotate180()
	ms, err := OwnAccuracyOf(pool, b, res.Models, [2]*data.Dataset{blobs(200, 7), rot}, 0)
	if err != nil {
		t.Fatal(err)
	}
	acc := make([]float64, len(ms))
	for i, m := range ms {
		acc[i] = m.Accuracy
	}
	return b, res, acc
}

func TestSelectionRunPENSFindsItsCluster(t *testing.T) {
	b, res, acc := runSelection(t, selection.KindPENS)
	clusters := b.Clusters()
	var scores []selection.Score
	for i, p := range res.Policies {
		s, err := selection.PrecisionRecall(b.IDs[i], p.(*selection.PENS).Neighbours(), clusters)
		if err != nil {
			t.Fatal(err)
		}
		scores = append(scores, s)
	}
	prec, _ := selection.MeanScore(scores)
	if prec < 0.9 {
		t.Errorf("PENS precision %.2f on separable rotation clusters", prec)
	}
	if res.Timeouts != 0 || res.RateLimited != 0 || res.StepErrors != 0 || res.TrainFailures != 0 {
		t.Errorf("timeouts %d, rate limited %d, step errors %d, train failures %d: nothing should fail here",
			res.Timeouts, res.RateLimited, res.StepErrors, res.TrainFailures)
	}
	tot := res.Ledger.Total()
	// Every evaluation the cores ran: the answered requests, on 20
	// samples each, and no self-evaluations (PENS's plan has none).
	if tot.BytesSent != tot.BytesReceived || res.Evaluations == 0 || tot.EvalSamples != 20*int64(res.Evaluations) {
		t.Errorf("ledger %+v, %d evaluations", tot, res.Evaluations)
	}
	// 7 trainings per peer (round 0 and 6 rounds), 4 steps of 8.
	if tot.Trainings != 7*12 || tot.TrainSamples != 7*12*32 {
		t.Errorf("trainings %d of %d samples", tot.Trainings, tot.TrainSamples)
	}
	// Step 2 (rounds 4-6) picks 3 neighbours per round (fewer if PENS
	// kept fewer), step 1 one; no timeouts, so every pick is averaged.
	var picks, want int32
	for i, row := range res.Picks {
		want += 3*1 + 3*int32(min(3, len(res.Policies[i].(*selection.PENS).Neighbours())))
		if row[i] != 0 {
			t.Errorf("peer %d averaged with itself", i)
		}
		for _, c := range row {
			picks += c
		}
	}
	if picks != want {
		t.Errorf("%d picks, want %d", picks, want)
	}
	_, again, acc2 := runSelection(t, selection.KindPENS)
	if !reflect.DeepEqual(acc, acc2) || again.Ledger.Total() != tot {
		t.Error("same seed, different run")
	}
}

func TestSelectionRunLocalSendsNothing(t *testing.T) {
	_, res, _ := runSelection(t, selection.KindLocal)
	if tot := res.Ledger.Total(); tot.BytesSent != 0 || tot.Trainings != 7*12 {
		t.Errorf("local: %+v", tot)
	}
}

// RandomWeighted also evaluates its own model every round (its
// averaging weights): the simulator runs the core's self-evaluations
// besides the candidates' answers.
func TestSelectionRunRandomWeightedEvaluatesItself(t *testing.T) {
	_, res, _ := runSelection(t, selection.KindRandomWeighted)
	tot := res.Ledger.Total()
	// Per peer and round: 3 candidates answer, on 20 samples each, and
	// the peer evaluates its own model on 20.
	if res.Evaluations != 12*6*3 || tot.EvalSamples != 20*int64(res.Evaluations)+20*12*6 || res.Timeouts != 0 {
		t.Errorf("%d evaluations, %d samples evaluated, %d timeouts", res.Evaluations, tot.EvalSamples, res.Timeouts)
	}
}

func testEval() Eval { return Eval{Test: blobs(200, 8), Peers: 4} }

func runPlexus(t *testing.T) *PlexusResult {
	t.Helper()
	pool := NewPool(2)
	defer pool.Close()
	b := tinyPeers(t, 20, "iid")
	dev, l := tinyDevices(t, 20)
	res, err := PlexusRun{
		Peers: b, Devices: dev, Links: l, SampleSize: 5, SuccessFraction: 0.8, Rounds: 12,
		Tick: 100 * time.Millisecond, Eval: testEval(), EvalEvery: 3, Pool: pool,
	}.Run()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestPlexusRunAccounting(t *testing.T) {
	res := runPlexus(t)
	if res.Rounds != 12 || len(res.Curve.Points) != 5 { // initial model and rounds 3, 6, 9, 12
		t.Fatalf("%d rounds, %d points", res.Rounds, len(res.Curve.Points))
	}
	tot := res.Ledger.Total()
	if tot.BytesSent != tot.BytesReceived {
		t.Errorf("sent %d, received %d", tot.BytesSent, tot.BytesReceived)
	}
	// Each round trains at most s = 5 models and at least floor(5*0.8).
	if tot.Trainings < 12*4 || tot.Trainings > 12*5 {
		t.Errorf("%d trainings in 12 rounds of s = 5", tot.Trainings)
	}
	var sent uint64
	for _, s := range res.Stats {
		sent += s.TotalSent().Bytes
	}
	if int64(sent+res.Digests.Bytes) != tot.BytesSent || res.Digests.Msgs == 0 {
		t.Errorf("state machines sent %d bytes and %d of digests, ledger %d", sent, res.Digests.Bytes, tot.BytesSent)
	}
	c := res.Curve
	for i := 1; i < len(c.Points); i++ {
		p, q := c.Points[i-1], c.Points[i]
		if q.Time < p.Time || q.Bytes < p.Bytes || q.TrainTime < p.TrainTime {
			t.Fatalf("costs decrease: %+v then %+v", p, q)
		}
	}
	if f := c.Final(); f.Acc.Mean < c.Points[0].Acc.Mean+0.2 {
		t.Errorf("global model did not learn: %.2f -> %.2f", c.Points[0].Acc.Mean, f.Acc.Mean)
	}
	if again := runPlexus(t); !reflect.DeepEqual(again.Curve, res.Curve) {
		t.Error("same seed, different run")
	}
}

func runDPSGD(t *testing.T, sched func(n int) gossip.Schedule) *DPSGDResult {
	t.Helper()
	pool := NewPool(2)
	defer pool.Close()
	b := tinyPeers(t, 16, "iid")
	dev, l := tinyDevices(t, 16)
	res, err := DPSGDRun{
		Peers: b, Devices: dev, Links: l, Schedule: sched(16), Name: "d", Rounds: 6,
		Eval: testEval(), EvalEvery: 2, Pool: pool,
	}.Run()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestDPSGDRunOnePeerExp(t *testing.T) {
	res := runDPSGD(t, func(n int) gossip.Schedule { return gossip.OnePeerExp{Nodes: n} })
	// One model sent and one training per peer and round, and no peer
	// skipped a round (every model in time: no timeout, no catching up);
	// a fast peer runs ahead of the slowest by a few rounds.
	for i := range 16 {
		a, st := res.Ledger.Peer(i), res.Stats[i]
		if a.ModelsSent < 6 || a.Trainings < 7 || a.ModelsSent != a.Trainings || a.ModelsSent > 6+4 ||
			st.Timeouts != 0 || st.Stale != 0 || st.Skipped != 0 || st.Rounds+1 != uint64(a.Trainings) && st.Rounds != uint64(a.Trainings) {
			t.Errorf("peer %d: %+v, %+v", i, a, st)
		}
	}
	if len(res.Curve.Points) != 4 || res.Curve.Final().Acc.Mean < 0.5 {
		t.Errorf("curve %+v", res.Curve.Points)
	}
	// Rounds take time: at least the slowest peer's training each.
	slow := Device{Speed: 100}.TrainTime(32)
	if f := res.Curve.Final(); f.Time < 7*slow {
		t.Errorf("7 rounds in %v, slowest training %v", f.Time, slow)
	}
	if again := runDPSGD(t, func(n int) gossip.Schedule { return gossip.OnePeerExp{Nodes: n} }); !reflect.DeepEqual(again.Curve, res.Curve) {
		t.Error("same seed, different run")
	}
}

func runGossip(t *testing.T) *GossipResult {
	t.Helper()
	pool := NewPool(2)
	defer pool.Close()
	b := tinyPeers(t, 16, "iid")
	dev, l := tinyDevices(t, 16)
	res, err := GossipRun{
		Peers: b, Devices: dev, Links: l, Period: time.Second, Tick: 100 * time.Millisecond, Duration: 20 * time.Second,
		Seed: 1, Eval: testEval(), EvalEvery: 5 * time.Second, Pool: pool,
	}.Run()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestGossipRun(t *testing.T) {
	res := runGossip(t)
	tot := res.Ledger.Total()
	// About one push per peer per period (the first at a random tick).
	if tot.ModelsSent < 16*15 || tot.ModelsSent > 16*21 {
		t.Errorf("%d models sent by 16 peers in 20 periods", tot.ModelsSent)
	}
	if tot.Trainings == 0 || tot.Trainings > tot.ModelsReceived {
		t.Errorf("%d trainings for %d models received", tot.Trainings, tot.ModelsReceived)
	}
	if len(res.Curve.Points) != 5 || res.Curve.Final().Acc.Mean < 0.5 {
		t.Errorf("curve %+v", res.Curve.Points)
	}
	if again := runGossip(t); !reflect.DeepEqual(again.Curve, res.Curve) {
		t.Error("same seed, different run")
	}
}

var _ = ident.Peer{}
