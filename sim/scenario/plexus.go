package scenario

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/report"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/protocol/gossip"
	"github.com/peerlearn/peerlearn/sim/methodsim"
	"github.com/peerlearn/peerlearn/theory/topology"
)

// Scenario plexus reproduces the comparison of the Plexus paper (Sec.
// 4.2, Fig. 3): Plexus (s = 10, sf = 0.8) against the decentralized
// learning baselines D-PSGD on a one-peer exponential graph, D-PSGD on a
// 10-regular graph and Gossip Learning, on 100 peers with heterogeneous
// compute and bandwidth (methodsim.MobileTiers: 20% fast, 50% medium, 30%
// slow) and ring-distance latencies (10-200 ms), in virtual time
// (methodsim's model of time). Every peer trains 5 local steps of batch
// 20 per training (Sec. 4.1) with SGD; MNIST is split across the peers
// with a Dirichlet label skew.
//
// Measured: Plexus's global model after aggregation, the baselines' mean
// over a fixed subset of peers of their own models, on the MNIST test
// set. The target accuracy is 97% of the best (highest-peaking) DL
// baseline's peak; time, bytes sent (all peers) and training time (all
// peers) to reach it are interpolated between measurements, and each
// ratio is the best DL baseline for that metric divided by Plexus, as the
// paper reports them. `plexus-300` is the same with 300 peers.
func init() {
	run := func(ctx context.Context, o Options, n int) (string, error) {
		return runPlexus(ctx, o, plexusScale(n, o.Quick))
	}
	Register(Scenario{
		Data:    true,
		Name:    "plexus",
		Summary: "Plexus (s=10, sf=0.8) vs D-PSGD (one-peer exp., 10-regular) and Gossip Learning: 100 heterogeneous MNIST peers (-n), time/communication/resources to accuracy (Plexus paper Fig. 3)",
		MinN:    plexusMinPeers,
		MaxN:    plexusMaxPeers,
		Run:     sized(100, plexusMinPeers, plexusMaxPeers, run),
	})
	Register(Scenario{
		Data:    true,
		Name:    "plexus-300",
		Summary: "plexus with 300 peers; the same as plexus -n 300",
		Run:     sized(300, 0, 0, run),
	})
}

// plexusParams is one scale of the scenario.
type plexusParams struct {
	peers      int
	partition  string
	arch       string
	lr         float32
	batch      int
	steps      int // local steps per training
	s          int
	sf         float64
	duration   time.Duration // virtual time every method runs
	evalTest   int           // test images per measurement
	evalPeers  int           // DL peers measured
	plexusEval int           // Plexus: measure every this many rounds
	dlEval     int           // D-PSGD: measure every this many rounds
	glEval     time.Duration // Gossip Learning: measure every
	targetFrac float64       // target = targetFrac x the best DL baseline's peak
	quickNote  string
}

// plexusMinPeers: a round samples s = 10 peers, D-PSGD's 10-regular graph
// needs 11, and 20 peers are measured; -quick keeps 2/5 of the peers.
const plexusMinPeers = 60

// plexusMaxPeers: Dirichlet shards of MNIST average 60 images at 1,000
// peers, three local steps of 20.
const plexusMaxPeers = 1000

func plexusScale(peers int, quick bool) plexusParams {
	p := plexusParams{
		peers: peers, partition: "dirichlet:0.3", arch: "fedlay-mlp", lr: 0.05, batch: 20, steps: 5,
		s: 10, sf: 0.8, duration: 10 * time.Minute, evalTest: 2000, evalPeers: 20,
		plexusEval: 5, dlEval: 5, glEval: 10 * time.Second, targetFrac: 0.97,
	}
	if quick {
		p.peers, p.duration, p.evalTest, p.evalPeers = peers*2/5, 4*time.Minute, 1000, 10
		p.quickNote = fmt.Sprintf("quick: %d peers instead of %d, %v of virtual time instead of %v, measurements on %d test images and %d peers",
			p.peers, peers, p.duration, 10*time.Minute, p.evalTest, p.evalPeers)
	}
	return p
}

// plexusStudy is the scenario's run (see study).
type plexusStudy struct {
	p           plexusParams
	train, test *data.Dataset
	arch        nn.Arch
	tiers       []methodsim.Tier
	devs        []methodsim.Device
	period      time.Duration   // Gossip Learning's
	results     []plexusOutcome // Plexus first, then the DL baselines
}

// plexusOutcome is one method's result.
type plexusOutcome struct {
	curve  methodsim.Curve
	ledger *methodsim.Ledger
	note   string
}

// Links have latencies from plexusMinLat to plexusMaxLat by ring distance.
const plexusMinLat, plexusMaxLat = 10 * time.Millisecond, 200 * time.Millisecond

func runPlexus(ctx context.Context, o Options, p plexusParams) (string, error) {
	return runStudy(ctx, o, &plexusStudy{p: p})
}

func (s *plexusStudy) describe(o Options, out io.Writer) error {
	p := s.p
	var err error
	if s.train, s.test, err = loadDataset(o); err != nil {
		return err
	}
	if s.arch, err = nn.NewArch(p.arch); err != nil {
		return err
	}
	s.tiers = methodsim.MobileTiers()
	if s.devs, err = methodsim.AssignDevices(p.peers, s.tiers, o.Seed); err != nil {
		return err
	}
	modelBytes := int64(4 * mustParams(s.arch))
	s.period = gossipPeriod(s.tiers, p.steps*p.batch, modelBytes)
	fmt.Fprintf(out, "plexus: %d peers, %s %s, %s (%d params, %s), SGD lr %g, %d local steps of batch %d per training, common initialisation\n",
		p.peers, o.dataset(), p.partition, s.arch.Name, mustParams(s.arch), methodsim.FormatBytes(float64(modelBytes)), p.lr, p.steps, p.batch)
	fmt.Fprintf(out, "  devices:")
	for _, t := range s.tiers {
		fmt.Fprintf(out, " %s %.0f%% (%.0f samples/s, %s/s)", t.Name, 100*t.Share, t.Speed, methodsim.FormatBytes(t.Bandwidth))
	}
	fmt.Fprintf(out, "; latency %v-%v by ring distance\n", plexusMinLat, plexusMaxLat)
	fmt.Fprintf(out, "  Plexus s=%d sf=%.1f; D-PSGD one-peer exponential and 10-regular; Gossip Learning period %v; %v of virtual time each\n",
		p.s, p.sf, s.period, p.duration)
	if p.quickNote != "" {
		fmt.Fprintf(out, "  %s\n", p.quickNote)
	}
	return nil
}

// gossipPeriod is Gossip Learning's period: long enough for the slowest
// peer to train samples and send its model (the paper's 60 s round, Sec.
// 4.1), rounded up to a tenth of a second.
func gossipPeriod(tiers []methodsim.Tier, samples int, modelBytes int64) time.Duration {
	slow := tiers[len(tiers)-1]
	for _, t := range tiers {
		if t.Speed < slow.Speed {
			slow = t
		}
	}
	slowDev := methodsim.Device{Speed: slow.Speed, Bandwidth: slow.Bandwidth}
	return (slowDev.TrainTime(samples) + slowDev.SendTime(modelBytes) + plexusMaxLat).Round(100 * time.Millisecond)
}

// build makes a fresh population and links for one method.
func (s *plexusStudy) build(o Options) (*methodsim.Peers, *methodsim.Links, error) {
	p := s.p
	cfg := learn.DefaultConfig()
	cfg.Arch, cfg.Batch, cfg.LocalSteps = s.arch, p.batch, p.steps
	cfg.Optimizer = learn.OptimizerConfig{Name: "sgd", LR: p.lr}
	cfg.Aggregator, cfg.ResetOptimizer = "mean", true
	cfg.Init = learn.Init{Mode: learn.InitCommon, CommonSeed: o.Seed}
	b, err := methodsim.Population{Train: s.train, Partition: p.partition, N: p.peers, Seed: o.Seed, Config: cfg}.Build()
	if err != nil {
		return nil, nil, err
	}
	l, err := methodsim.NewLinks(s.devs, plexusMinLat, plexusMaxLat, o.Seed)
	return b, l, err
}

// eval is the measurement during a run.
func (s *plexusStudy) eval() methodsim.Eval {
	return methodsim.Eval{Test: s.test, Samples: s.p.evalTest, Peers: s.p.evalPeers}
}

// run runs Plexus, D-PSGD on the one-peer exponential graph and on a
// 10-regular graph, and Gossip Learning.
func (s *plexusStudy) run(ctx context.Context, o Options) error {
	return onPool(func(pool *methodsim.Pool) error {
		if err := s.runPlexus(ctx, o, pool); err != nil {
			return err
		}
		for _, name := range []string{"d-psgd-1peer-exp", "d-psgd-10-regular"} {
			if err := s.runDPSGD(ctx, o, pool, name); err != nil {
				return err
			}
		}
		return s.runGossip(ctx, o, pool)
	})
}

func (s *plexusStudy) runPlexus(ctx context.Context, o Options, pool *methodsim.Pool) error {
	p := s.p
	b, l, err := s.build(o)
	if err != nil {
		return err
	}
	res, err := methodsim.PlexusRun{
		Peers: b, Devices: s.devs, Links: l, SampleSize: p.s, SuccessFraction: p.sf,
		Rounds: 1 << 20, Duration: p.duration, Tick: 100 * time.Millisecond,
		Eval: s.eval(), EvalEvery: p.plexusEval, Pool: pool, Ctx: ctx, Progress: o.Progress, Label: "plexus",
	}.Run()
	if err != nil {
		return fmt.Errorf("plexus: %w", err)
	}
	var late uint64
	for _, st := range res.Stats {
		late += st.TrainedLate + st.ModelsLate
	}
	note := fmt.Sprintf("%d rounds (%.1f s each), %d trained models too late for their round (sf)", res.Rounds,
		p.duration.Seconds()/math.Max(1, float64(res.Rounds)), late)
	s.results = append(s.results, plexusOutcome{res.Curve, res.Ledger, note})
	return nil
}

func (s *plexusStudy) runDPSGD(ctx context.Context, o Options, pool *methodsim.Pool, name string) error {
	p := s.p
	b, l, err := s.build(o)
	if err != nil {
		return err
	}
	var sched gossip.Schedule = gossip.OnePeerExp{Nodes: p.peers}
	if name == "d-psgd-10-regular" {
		g, err := topology.RandomRegular(p.peers, 10, rand.New(rand.NewPCG(o.Seed, 0x3130726567)))
		if err != nil {
			return err
		}
		sched = gossip.StaticGraph{G: g}
	}
	res, err := methodsim.DPSGDRun{
		Peers: b, Devices: s.devs, Links: l, Schedule: sched, Name: name, Rounds: 1 << 20, Duration: p.duration,
		Eval: s.eval(), EvalEvery: p.dlEval, Pool: pool, Ctx: ctx, Progress: o.Progress, Label: name,
	}.Run()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	f := res.Curve.Final()
	note := fmt.Sprintf("%.0f rounds (%.1f s each)", f.Round, f.Time.Seconds()/math.Max(1, f.Round))
	s.results = append(s.results, plexusOutcome{res.Curve, res.Ledger, note})
	return nil
}

func (s *plexusStudy) runGossip(ctx context.Context, o Options, pool *methodsim.Pool) error {
	p := s.p
	b, l, err := s.build(o)
	if err != nil {
		return err
	}
	res, err := methodsim.GossipRun{
		Peers: b, Devices: s.devs, Links: l, Period: s.period, Tick: 100 * time.Millisecond, Duration: p.duration,
		Seed: o.Seed, Eval: s.eval(), EvalEvery: p.glEval, Pool: pool, Ctx: ctx, Progress: o.Progress, Label: "gossip",
	}.Run()
	if err != nil {
		return fmt.Errorf("gossip: %w", err)
	}
	var merges, replaced uint64
	for _, st := range res.Stats {
		merges += st.Merges
		replaced += st.Replaced
	}
	note := fmt.Sprintf("period %v, %d merges, %d waiting models replaced", s.period, merges, replaced)
	s.results = append(s.results, plexusOutcome{res.Curve, res.Ledger, note})
	return nil
}

// report sets the target at a fraction of the best DL baseline's peak,
// prints what each method cost to reach it and the ratios, and writes
// the files.
func (s *plexusStudy) report(o Options, out io.Writer) (wrote, summary string, err error) {
	p := s.p
	bestPeak, bestName := 0.0, ""
	for _, r := range s.results[1:] {
		if pk := r.curve.Peak(); pk > bestPeak {
			bestPeak, bestName = pk, r.curve.Name
		}
	}
	target := p.targetFrac * bestPeak
	tw := newTable(out, "method\tpeak acc %\tfinal acc %\ttime to target\tGB sent to target\ttrain hours to target\tMB sent/peer (run)\ttrain s/peer (run)\tnotes")
	baselines := map[string]methodsim.Cost{}
	var plexusCost methodsim.Cost
	plexusOK := false
	var rows [][]any
	for i, r := range s.results {
		c, ok := r.curve.Reach(target)
		reach := "not reached\t-\t-"
		if ok {
			reach = fmt.Sprintf("%.1f s\t%.3f\t%.2f", c.Time.Seconds(), c.Bytes/1e9, c.TrainTime.Hours())
			if i == 0 {
				plexusCost, plexusOK = c, true
			} else {
				baselines[r.curve.Name] = c
			}
		}
		m := r.ledger.Mean()
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%s\t%.2f\t%.1f\t%s\n", r.curve.Name, 100*r.curve.Peak(), 100*r.curve.Final().Acc.Mean, reach,
			float64(m.BytesSent)/1e6, m.TrainTime.Seconds(), r.note)
		rows = append(rows, []any{r.curve.Name, r.curve.Peak(), r.curve.Final().Acc.Mean, ok, c.Time.Seconds(), c.Bytes, c.TrainTime.Seconds(),
			m.BytesSent, m.BytesReceived, m.TrainTime.Seconds()})
	}
	tw.Flush()
	fmt.Fprintf(out, "  target accuracy %.2f%% = %.0f%% of the best DL baseline's peak (%s, %.2f%%)\n", 100*target, 100*p.targetFrac, bestName, 100*bestPeak)
	var ratios methodsim.Ratios
	if plexusOK {
		ratios = methodsim.Compare(plexusCost, baselines)
		fmt.Fprintf(out, "  Plexus vs the best DL baseline per metric: %v\n", ratios)
	} else {
		ratios = methodsim.Ratios{TTA: math.NaN(), Comm: math.NaN(), Res: math.NaN()}
		fmt.Fprintf(out, "  Plexus did not reach the target\n")
	}
	fmt.Fprintf(out, "  paper (Sec. 4.2): 1.4-1.6x time, 15.8-292x communication, 30.5-77.9x resources vs the best DL baseline\n")

	curves := make([]methodsim.Curve, len(s.results))
	for i, r := range s.results {
		curves[i] = r.curve
	}
	if err := writePlexusOutputs(o.OutDir, p.peers, curves, rows); err != nil {
		return "", "", err
	}
	return filepath.Join(o.OutDir, fmt.Sprintf("plexus_%d*", p.peers)),
		fmt.Sprintf("scenario=plexus n=%d tta_ratio=%.2f comm_ratio=%.1f res_ratio=%.1f", p.peers, ratios.TTA, ratios.Comm, ratios.Res), nil
}

// writePlexusOutputs writes the summary CSV, the curves CSV and accuracy
// plots against time, bytes and training time.
func writePlexusOutputs(dir string, peers int, curves []methodsim.Curve, rows [][]any) error {
	base := filepath.Join(dir, fmt.Sprintf("plexus_%d", peers))
	if err := report.WriteCSV(base+"_summary.csv", []string{"method", "peak_acc", "final_acc", "reached", "time_to_target_s",
		"bytes_to_target", "train_s_to_target", "bytes_sent_per_peer", "bytes_received_per_peer", "train_s_per_peer"}, rows); err != nil {
		return err
	}
	var pts [][]any
	for _, c := range curves {
		for _, pt := range c.Points {
			pts = append(pts, []any{c.Name, pt.Round, pt.Time.Seconds(), pt.Bytes, pt.TrainTime.Seconds(), pt.TrainSamples, pt.Acc.Mean, pt.Acc.Min, pt.Acc.Max})
		}
	}
	if err := report.WriteCSV(base+"_curves.csv", []string{"method", "round", "time_s", "bytes_sent", "train_s", "train_samples",
		"acc_mean", "acc_min", "acc_max"}, pts); err != nil {
		return err
	}
	plots := []struct {
		suffix, xlabel string
		x              func(methodsim.Point) float64
		logX           bool
	}{
		{"time", "virtual time (s)", func(p methodsim.Point) float64 { return p.Time.Seconds() }, false},
		{"bytes", "bytes sent, all peers (MB)", func(p methodsim.Point) float64 { return float64(p.Bytes)/1e6 + 0.01 }, true},
		{"resources", "training time, all peers (s)", func(p methodsim.Point) float64 { return p.TrainTime.Seconds() + 0.01 }, true},
	}
	for _, pl := range plots {
		lp := report.LinePlot{Title: fmt.Sprintf("MNIST, %d peers", peers), XLabel: pl.xlabel, YLabel: "test accuracy (%)", LogX: pl.logX}
		for _, c := range curves {
			xs, ys := make([]float64, len(c.Points)), make([]float64, len(c.Points))
			for i, pt := range c.Points {
				xs[i], ys[i] = pl.x(pt), 100*pt.Acc.Mean
			}
			if len(xs) > 0 {
				lp.Add(c.Name, xs, ys)
			}
		}
		if err := lp.Save(base + "_acc_" + pl.suffix + ".png"); err != nil {
			return err
		}
	}
	return nil
}
