package scenario

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
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
		Data:    true,
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

// fedlayStudy is the scenario's run (see study).
type fedlayStudy struct {
	p           fedlayParams
	train, test *data.Dataset
	arch        nn.Arch
	results     []fedlayOutcome
}

// fedlayOutcome is one compared method's result.
type fedlayOutcome struct {
	name   string
	points []dflsim.Point
	final  dflsim.Point
	extra  string
}

// fedlayTick is the virtual time of one MEP tick.
const fedlayTick = time.Second

func runFedLayMNIST(ctx context.Context, o Options) (string, error) {
	return runStudy(ctx, o, &fedlayStudy{p: fedlayScale(o.Quick)})
}

func (s *fedlayStudy) describe(o Options, out io.Writer) error {
	p := s.p
	var err error
	if s.train, s.test, err = loadDataset(o); err != nil {
		return err
	}
	if s.arch, err = nn.NewArch("fedlay-mlp"); err != nil {
		return err
	}
	fmt.Fprintf(out, "fedlay-mnist: %d clients, %s shards:8, %s (%d params), SGD lr %g momentum 0.5, batch %d, 1 local epoch per round\n",
		p.clients, o.dataset(), s.arch.Name, mustParams(s.arch), p.lr, p.batch)
	fmt.Fprintf(out, "  medium period %v (training %v), tiers 60/20/20 (high 2/3x, low 2x), latency U(100 ms, 600 ms), %d periods = %v; FedAvg %d rounds\n",
		p.period, p.trainTime, p.periods, time.Duration(p.periods)*p.period, p.periods)
	if o.Quick {
		fmt.Fprintf(out, "  quick: %d clients instead of 100, %d periods instead of 30, measurements on %d test images (final: all 10,000)\n",
			p.clients, p.periods, p.evalTest)
	}
	return nil
}

// population is the clients every method starts from.
func (s *fedlayStudy) population(o Options) dflsim.Population {
	p := s.p
	cfg := learn.DefaultConfig()
	cfg.Arch, cfg.Batch, cfg.LocalEpochs = s.arch, p.batch, 1
	cfg.Optimizer = learn.OptimizerConfig{Name: "sgd", LR: p.lr, Momentum: 0.5}
	cfg.Aggregator = "fedlay"
	cfg.Init = learn.Init{Mode: learn.InitCommon, CommonSeed: o.Seed}
	cfg.MEP.Period = int(p.period / fedlayTick)
	cfg.MEP.OfferTimeout, cfg.MEP.TransferTimeout, cfg.MEP.JoinWait = 10, 30, 30
	return dflsim.Population{Train: s.train, Partition: "shards:8", N: p.clients, Seed: o.Seed, Config: cfg, Tiers: true}
}

// run runs MEP on FedLay's own overlay, on a ring and on Chord, then
// FedAvg.
func (s *fedlayStudy) run(ctx context.Context, o Options) error {
	return onPool(func(pool *dflsim.Pool) error {
		if err := s.runAsync(ctx, o, pool, "fedlay", nil); err != nil {
			return err
		}
		ring, err := topology.Ring(s.p.clients)
		if err != nil {
			return err
		}
		if err := s.runAsync(ctx, o, pool, "ring", ring); err != nil {
			return err
		}
		chord, err := topology.Chord(s.p.clients)
		if err != nil {
			return err
		}
		if err := s.runAsync(ctx, o, pool, "chord", chord); err != nil {
			return err
		}
		return s.runFedAvg(ctx, o, pool)
	})
}

// runAsync runs asynchronous MEP on graph g (nil: FedLay's NDMP overlay).
func (s *fedlayStudy) runAsync(ctx context.Context, o Options, pool *dflsim.Pool, name string, g *topology.Graph) error {
	p := s.p
	b, err := s.population(o).Build()
	if err != nil {
		return err
	}
	res, err := dflsim.AsyncRun{
		Peers: b.Peers, TrainScale: b.TrainScale, Tick: fedlayTick, TrainTime: p.trainTime,
		Duration: time.Duration(p.periods) * p.period,
		Latency:  simnet.Uniform{Min: 100 * time.Millisecond, Max: 600 * time.Millisecond},
		Graph:    g,
		Overlay:  dflsim.OverlayConfig{Spaces: 5, Tick: time.Second, JoinBatch: 10, JoinLimit: 5 * time.Minute},
		Eval:     s.eval(), EvalEvery: time.Duration(p.evalEvery) * p.period, RoundUnit: p.period,
		Seed: o.Seed, Pool: pool, Ctx: ctx, Progress: o.Progress, Label: "fedlay-mnist " + name, Logf: o.Logf,
	}.Run()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	final, err := dflsim.Measure(pool, b.Peers, s.fullEval(dflsim.Mixed))
	if err != nil {
		return err
	}
	trained, err := dflsim.Measure(pool, b.Peers, s.fullEval(dflsim.Trained))
	if err != nil {
		return err
	}
	extra := fmt.Sprintf("after local training %.2f%%; MEP step errors %d", 100*trained.Acc.Mean, res.StepErrors)
	if g == nil {
		extra += fmt.Sprintf("; overlay: %.1f KB NDMP per peer, correctness %.2f", float64(res.OverlayBytes)/1e3/float64(p.clients), res.Correctness)
	}
	s.results = append(s.results, fedlayOutcome{name, res.Points, final, extra})
	return nil
}

// runFedAvg runs centralised FedAvg, one round per medium period.
func (s *fedlayStudy) runFedAvg(ctx context.Context, o Options, pool *dflsim.Pool) error {
	p := s.p
	fb, err := s.population(o).Build()
	if err != nil {
		return err
	}
	fed, global, err := dflsim.FedAvgRun{
		Clients: fb.Peers, Rounds: p.periods, Eval: s.eval(), EvalEvery: p.evalEvery, Pool: pool, Ctx: ctx,
		Progress: o.Progress, Label: "fedlay-mnist fedavg",
	}.Run()
	if err != nil {
		return fmt.Errorf("fedavg: %w", err)
	}
	fedFinal := fed[len(fed)-1]
	m, err := dflsim.MeasureModel(pool, s.arch, global, s.fullEval(dflsim.Mixed)) // the last global model on the full test set
	if err != nil {
		return err
	}
	fedFinal.Acc, fedFinal.Loss = m.Acc, m.Loss
	s.results = append(s.results, fedlayOutcome{"fedavg", fed, fedFinal, "centralised upper bound"})
	return nil
}

// eval is the measurement during a run; fullEval the final one, on the
// whole test set.
func (s *fedlayStudy) eval() dflsim.Eval {
	return dflsim.Eval{Test: s.test, Samples: s.p.evalTest, Model: dflsim.Mixed}
}

func (s *fedlayStudy) fullEval(model dflsim.Which) dflsim.Eval {
	return dflsim.Eval{Test: s.test, Model: model}
}

func (s *fedlayStudy) report(o Options, out io.Writer) (wrote, summary string, err error) {
	var series []dflsim.Series
	tw := newTable(out, "method\tacc mean %\tmin %\tmax %\ttest loss\tmodel MB sent/peer\tcontrol KB sent/peer\tsamples/peer\tnotes")
	acc := map[string]float64{}
	for _, r := range s.results {
		series = append(series, dflsim.Series{Name: r.name, Points: r.points})
		f := r.final
		acc[r.name] = 100 * f.Acc.Mean
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%.4f\t%.1f\t%.1f\t%.0f\t%s\n", r.name, 100*f.Acc.Mean, 100*f.Acc.Min, 100*f.Acc.Max,
			f.Loss.Mean, f.ModelBytes/1e6, f.ControlBytes/1e3, f.Samples, r.extra)
	}
	tw.Flush()
	fmt.Fprintf(out, "  paper (Table III, MNIST): FedLay 90.2%%, FedAvg 92.1%%, Chord 88.9%%\n")
	csvPath, pngPath := filepath.Join(o.OutDir, "fedlay_mnist.csv"), filepath.Join(o.OutDir, "fedlay_mnist_acc.png")
	if err := dflsim.WriteCSV(csvPath, series); err != nil {
		return "", "", err
	}
	if err := dflsim.Plot(pngPath, report.LinePlot{
		Title: "MNIST, 8 label shards per client", XLabel: "time (medium periods; FedAvg rounds)",
		YLabel: "mean test accuracy (%)"}, series, dflsim.ByRound, dflsim.MeanAcc); err != nil {
		return "", "", err
	}
	return csvPath + " and " + pngPath, fmt.Sprintf("scenario=fedlay-mnist acc_fedlay=%.2f acc_fedavg=%.2f acc_ring=%.2f acc_chord=%.2f",
		acc["fedlay"], acc["fedavg"], acc["ring"], acc["chord"]), nil
}
