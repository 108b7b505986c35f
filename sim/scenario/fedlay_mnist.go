package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/f32"
	"github.com/peerlearn/peerlearn/internal/report"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/sim/dflsim"
	"github.com/peerlearn/peerlearn/sim/simnet"
	"github.com/peerlearn/peerlearn/theory/topology"
)

// Scenario fedlay-mnist reproduces the MNIST row of Table III of the
// FedLay paper (Sec. IV-C, Fig. 10): 100 clients, MNIST split into label
// shards (8 per client, the paper's default), FedLay's MLP (Table II,
// 247 kB), 3 capacity tiers (60% medium; 20% high at 2/3 of the period
// and training time; 20% low at 2x), asynchronous MEP with confidence
// aggregation, the medium period 5 minutes (Table II), 350 ms average
// latency (Sec. IV-B). Compared: FedLay (d = 10, L = 5, neighbours from
// the NDMP overlay), the same learning on a ring and on a Chord overlay,
// and centralised FedAvg (all clients, the same local training, one
// round per medium period) as the upper bound. Accuracy is every peer's
// (FedAvg: the global model's) on the 10,000 MNIST test images at the
// end (150 minutes, when the paper's MNIST runs have converged).
func init() {
	Register(Scenario{
		Name:    "fedlay-mnist",
		Summary: "FedLay MEP on its overlay vs FedAvg, ring and Chord: 100 MNIST clients, 8 label shards each (Table III)",
		Run:     runFedLayMNIST,
	})
}

// fedlayParams is one scale of the scenario.
type fedlayParams struct {
	clients   int
	periods   int           // medium-tier periods of virtual time
	period    time.Duration // the medium tier's period
	trainTime time.Duration // the medium tier's training time per round
	evalEvery int           // periods between measurements
	evalTest  int           // test samples per measurement (the final one uses all)
	lr        float32
	batch     int
}

func fedlayScale(quick bool) fedlayParams {
	p := fedlayParams{
		clients: 100, periods: 30, period: 5 * time.Minute, trainTime: time.Minute,
		evalEvery: 2, evalTest: 2000, lr: 0.1, batch: 32,
	}
	if quick {
		p.clients, p.periods, p.evalEvery, p.evalTest = 40, 12, 3, 1000
	}
	return p
}

// loadMNIST reads MNIST from the data directory.
func loadMNIST(o Options) (train, test *data.Dataset, err error) {
	train, test, err = data.Load(os.DirFS(o.DataDir), "mnist")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w: %w", ErrNoData, err)
	}
	return train, test, err
}

// singleThreadKernels makes nn's kernels use one core each while the
// worker pool runs one job per core; the returned func restores.
func singleThreadKernels() func() {
	prev := f32.SetThreads(1)
	return func() { f32.SetThreads(prev) }
}

func runFedLayMNIST(ctx context.Context, o Options) (string, error) {
	start := time.Now()
	p := fedlayScale(o.Quick)
	train, test, err := loadMNIST(o)
	if err != nil {
		return "", err
	}
	arch, err := nn.NewArch("fedlay-mlp")
	if err != nil {
		return "", err
	}
	out := o.Stdout
	if out == nil {
		out = io.Discard
	}
	fmt.Fprintf(out, "fedlay-mnist: %d clients, MNIST shards:8, %s (%d params), SGD lr %g momentum 0.5, batch %d, 1 local epoch per round\n",
		p.clients, arch.Name, mustParams(arch), p.lr, p.batch)
	fmt.Fprintf(out, "  medium period %v (training %v), tiers 60/20/20 (high 2/3x, low 2x), latency U(100 ms, 600 ms), %d periods = %v; FedAvg %d rounds\n",
		p.period, p.trainTime, p.periods, time.Duration(p.periods)*p.period, p.periods)
	if o.Quick {
		fmt.Fprintf(out, "  quick: %d clients instead of 100, %d periods instead of 30, measurements on %d test images (final: all 10,000)\n",
			p.clients, p.periods, p.evalTest)
	}
	defer singleThreadKernels()()
	pool := dflsim.NewPool(0)
	defer pool.Close()

	const tick = time.Second
	cfg := learn.DefaultConfig()
	cfg.Arch, cfg.Batch, cfg.LocalEpochs = arch, p.batch, 1
	cfg.Optimizer = learn.OptimizerConfig{Name: "sgd", LR: p.lr, Momentum: 0.5}
	cfg.Aggregator = "fedlay"
	cfg.Init = learn.Init{Mode: learn.InitCommon, CommonSeed: o.Seed}
	cfg.MEP.Period = int(p.period / tick)
	cfg.MEP.OfferTimeout, cfg.MEP.TransferTimeout, cfg.MEP.JoinWait = 10, 30, 30
	pop := dflsim.Population{Train: train, Partition: "shards:8", N: p.clients, Seed: o.Seed, Config: cfg, Tiers: true}
	ev := dflsim.Eval{Test: test, Samples: p.evalTest, Model: dflsim.Mixed}
	full := dflsim.Eval{Test: test, Model: dflsim.Mixed}
	fullTrained := dflsim.Eval{Test: test, Model: dflsim.Trained}

	type outcome struct {
		name   string
		points []dflsim.Point
		final  dflsim.Point
		extra  string
	}
	var results []outcome
	runAsync := func(name string, g *topology.Graph) error {
		b, err := pop.Build()
		if err != nil {
			return err
		}
		res, err := dflsim.AsyncRun{
			Peers: b.Peers, TrainScale: b.TrainScale, Tick: tick, TrainTime: p.trainTime,
			Duration: time.Duration(p.periods) * p.period,
			Latency:  simnet.Uniform{Min: 100 * time.Millisecond, Max: 600 * time.Millisecond},
			Graph:    g,
			Overlay:  dflsim.OverlayConfig{Spaces: 5, Tick: time.Second, JoinBatch: 10, JoinLimit: 5 * time.Minute},
			Eval:     ev, EvalEvery: time.Duration(p.evalEvery) * p.period, RoundUnit: p.period,
			Seed: o.Seed, Pool: pool, Ctx: ctx, Progress: o.Progress, Label: "fedlay-mnist " + name, Logf: o.Logf,
		}.Run()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		final, err := dflsim.Measure(pool, b.Peers, full)
		if err != nil {
			return err
		}
		trained, err := dflsim.Measure(pool, b.Peers, fullTrained)
		if err != nil {
			return err
		}
		extra := fmt.Sprintf("after local training %.2f%%; MEP step errors %d", 100*trained.Acc.Mean, res.StepErrors)
		if g == nil {
			extra += fmt.Sprintf("; overlay: %.1f KB NDMP per peer, correctness %.2f", float64(res.OverlayBytes)/1e3/float64(p.clients), res.Correctness)
		}
		results = append(results, outcome{name, res.Points, final, extra})
		return nil
	}
	if err := runAsync("fedlay", nil); err != nil {
		return "", err
	}
	ring, err := topology.Ring(p.clients)
	if err != nil {
		return "", err
	}
	if err := runAsync("ring", ring); err != nil {
		return "", err
	}
	chord, err := topology.Chord(p.clients)
	if err != nil {
		return "", err
	}
	if err := runAsync("chord", chord); err != nil {
		return "", err
	}
	fb, err := pop.Build()
	if err != nil {
		return "", err
	}
	fed, global, err := dflsim.FedAvgRun{
		Clients: fb.Peers, Rounds: p.periods, Eval: ev, EvalEvery: p.evalEvery, Pool: pool, Ctx: ctx,
		Progress: o.Progress, Label: "fedlay-mnist fedavg",
	}.Run()
	if err != nil {
		return "", fmt.Errorf("fedavg: %w", err)
	}
	fedFinal := fed[len(fed)-1]
	m, err := dflsim.MeasureModel(pool, arch, global, full) // the last global model on the full test set
	if err != nil {
		return "", err
	}
	fedFinal.Acc, fedFinal.Loss = m.Acc, m.Loss
	results = append(results, outcome{"fedavg", fed, fedFinal, "centralised upper bound"})

	var series []dflsim.Series
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\tacc mean %\tmin %\tmax %\ttest loss\tmodel MB sent/peer\tcontrol KB sent/peer\tsamples/peer\tnotes")
	acc := map[string]float64{}
	for _, r := range results {
		series = append(series, dflsim.Series{Name: r.name, Points: r.points})
		f := r.final
		acc[r.name] = 100 * f.Acc.Mean
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%.4f\t%.1f\t%.1f\t%.0f\t%s\n", r.name, 100*f.Acc.Mean, 100*f.Acc.Min, 100*f.Acc.Max,
			f.Loss.Mean, f.ModelBytes/1e6, f.ControlBytes/1e3, f.Samples, r.extra)
	}
	tw.Flush()
	fmt.Fprintf(out, "  paper (Table III, MNIST): FedLay 90.2%%, FedAvg 92.1%%, Chord 88.9%%\n")
	if err := dflsim.WriteCSV(filepath.Join(o.OutDir, "fedlay_mnist.csv"), series); err != nil {
		return "", err
	}
	if err := dflsim.Plot(filepath.Join(o.OutDir, "fedlay_mnist_acc.png"), report.LinePlot{
		Title: "MNIST, 8 label shards per client", XLabel: "time (medium periods; FedAvg rounds)",
		YLabel: "mean test accuracy (%)"}, series, dflsim.ByRound, dflsim.MeanAcc); err != nil {
		return "", err
	}
	fmt.Fprintf(out, "  wrote %s and %s (%.0f s)\n", filepath.Join(o.OutDir, "fedlay_mnist.csv"),
		filepath.Join(o.OutDir, "fedlay_mnist_acc.png"), time.Since(start).Seconds())
	return fmt.Sprintf("scenario=fedlay-mnist acc_fedlay=%.2f acc_fedavg=%.2f acc_ring=%.2f acc_chord=%.2f",
		acc["fedlay"], acc["fedavg"], acc["ring"], acc["chord"]), nil
}

// mustParams is the architecture's parameter count (0 if invalid).
func mustParams(a nn.Arch) int {
	n, _ := a.NumParams()
	return n
}
