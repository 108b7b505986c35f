package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/modelcodec"
	"github.com/peerlearn/peerlearn/internal/report"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/sim/dflsim"
	"github.com/peerlearn/peerlearn/sim/methodsim"
	"github.com/peerlearn/peerlearn/sim/scenario"
	"github.com/peerlearn/peerlearn/sim/simnet"
	"github.com/peerlearn/peerlearn/theory/topology"
)

// The compression scenario: per method and codec, the same task spec on
// the same peers in virtual time (the real cores, as `sim train -spec`
// runs them), models carried by the codec on every link; the bytes each
// peer sent until the mean accuracy reached the target, and the final
// accuracy, against uncompressed float32.

func init() {
	scenario.Register(scenario.Scenario{
		Name:    "compression",
		Summary: "bytes per peer to a target accuracy and final accuracy, per method (FedLay, Gossip, D-PSGD, PENS, Plexus) and model codec (f16, int8, delta-int8, delta-int4, delta-topk), against float32",
		Data:    true,
		Run:     runCompression,
	})
}

// compressionCodecs are the codecs compared, the first the reference.
var compressionCodecs = []string{"f32", "f16", "int8", "delta-int8", "delta-int4", "delta-topk:0.1", "delta-topk:0.25"}

// compressionMethods are the methods compared: FedLay's MEP (in dflsim,
// which drives learn.Peer's MEP) and those with a core (methodsim).
var compressionMethods = []string{"fedlay", "gossip", "dpsgd", "pens", "plexus"}

// compressionEvalEvery is how often (virtual time) the scenario measures
// every peer's current model for the curve; compressionEvalSamples the
// own-distribution test samples each is measured on then. The final
// accuracy is measured on each peer's whole own-distribution test split
// (about 1,250 samples with 8 peers): on 300 a peer, two runs' final
// accuracies differed by as much through which samples were drawn as
// through the codec.
const (
	compressionEvalEvery   = 2 * time.Second
	compressionEvalSamples = 300
	// compressionTargetGap is the target: the float32 runs' last curve
	// point, averaged over the seeds, less this many points. One target
	// per method, not one per seed: a seed whose float32 run ended on a
	// lucky high set a target that its near-lossless f16 run missed
	// (Plexus on Fashion-MNIST).
	compressionTargetGap = 0.02
)

// compressionCell is one method and codec's run.
type compressionCell struct {
	method, codec string
	seed          uint64
	// bytes[k] is the mean bytes a peer had sent at the k-th measurement,
	// acc[k] the mean accuracy then (compressionEvalSamples a peer); the
	// last measurement is at the end.
	bytes, acc []float64
	// final is the mean over the peers of each one's accuracy averaged
	// over the models it ended its last compressionWindow(rounds) rounds
	// on (sim_compression_window.go); end the same for its model at the
	// end alone (the single measurement this scenario took before). Both
	// on every peer's whole own-distribution test split.
	final, end float64
	refusals   int
}

// bytesTo returns the bytes a peer had sent when the mean accuracy first
// reached target, or NaN if it never did.
func (c compressionCell) bytesTo(target float64) float64 {
	for k, a := range c.acc {
		if a >= target {
			return c.bytes[k]
		}
	}
	return math.NaN()
}

func runCompression(ctx context.Context, o scenario.Options) (string, error) {
	ds := o.Dataset
	if ds == "" {
		ds = "mnist"
	}
	n, rounds, seeds := 8, 16, 5
	if o.Quick {
		n, rounds, seeds = 6, 8, 1
		fmt.Fprintf(o.Stdout, "quick: %d peers, %d rounds, 1 seed (full: 8 peers, 16 rounds, 5 seeds)\n", n, rounds)
	}
	if o.N > 0 {
		n = o.N
	}
	plan := compressionPlan{codecs: compressionCodecs, methods: compressionMethods, seeds: seeds, rounds: rounds}
	if err := plan.compressionSelected(); err != nil {
		return "", err
	}
	if plan.selected != "" {
		fmt.Fprintf(o.Stdout, "subset (%s=%q): codecs %s, methods %s, %d seeds\n", compressionSelectEnv, plan.selected,
			strings.Join(plan.codecs, ","), strings.Join(plan.methods, ","), plan.seeds)
	}
	train, test, err := data.Load(os.DirFS(o.DataDir), ds)
	if err != nil {
		return "", err
	}
	var cells []compressionCell
	for _, m := range plan.methods {
		for _, c := range plan.codecs {
			for k := range uint64(plan.seeds) {
				cell, err := compressionRun(ctx, m, c, ds, n, plan.rounds, o.Seed+k, train, test)
				if err != nil {
					return "", fmt.Errorf("%s %s seed %d: %w", m, c, o.Seed+k, err)
				}
				o.Logf("compression: %s %s seed %d final %.4f (end %.4f), %.2f MB a peer, %d refused deltas", m, c, o.Seed+k, cell.final, cell.end, last(cell.bytes)/1e6, cell.refusals)
				cells = append(cells, cell)
			}
		}
	}
	return compressionReport(o, ds, plan, cells)
}

func last(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return v[len(v)-1]
}

// compressionRun runs method m with codec c on n peers for rounds rounds.
func compressionRun(ctx context.Context, m, c, ds string, n, rounds int, seed uint64, train, test *data.Dataset) (compressionCell, error) {
	cell := compressionCell{method: m, codec: c, seed: seed}
	cfg, err := modelcodec.Parse(c)
	if err != nil {
		return cell, err
	}
	spec := liveSpec(m, n, rounds)
	spec.Dataset = ds
	spec.Partition.Seed, spec.Init.Seed = seed, seed+6
	if c != "f32" {
		spec.Codec = c // the peers' MEP takes lossy copies (LearnerConfig)
	}
	if m == "fedlay" {
		return compressionRunFedLay(ctx, cell, cfg, spec, n, rounds, seed, train, test)
	}
	const tick = 100 * time.Millisecond
	sp, err := specPeers(spec, n, train, test, tick, nil)
	if err != nil {
		return cell, err
	}
	devs := make([]methodsim.Device, n)
	for i := range devs {
		// A fixed speed, not this machine's: the same seed gives the same
		// run anywhere. 10 MB/s links: a volunteer's uplink, so bytes are
		// time too.
		devs[i] = methodsim.Device{Speed: 2000, Bandwidth: 10e6}
	}
	links, err := methodsim.NewLinks(devs, 20*time.Millisecond, 60*time.Millisecond, seed)
	if err != nil {
		return cell, err
	}
	ev, err := learn.NewEvaluator(sp.peers.Peers[0].Config().Arch)
	if err != nil {
		return cell, err
	}
	models := make([][]float32, n)
	meanAcc := func(samples int) (float64, error) {
		for i, core := range sp.cores {
			models[i] = core.Model() // nil before its first round: counts as 0
		}
		return compressionMeanAcc(ev, models, sp.tests, samples)
	}
	window := newRoundModels(n, compressionWindow(rounds))
	afterPeer := func(i int) {
		if m == "dpsgd" {
			// D-PSGD ends on its last round's mix, but its Model is the
			// last trained model until then: the window takes the mixes
			// its last rounds trained from (learn.Peer.Mixed, renewed
			// when a training is applied), the same kind of model.
			lp := sp.peers.Peers[i]
			window.seen(i, lp.Metrics().Rounds, lp.Mixed())
			return
		}
		core := sp.cores[i]
		window.seen(i, core.Status().Round, core.Model())
	}
	pool := methodsim.NewPool(0)
	defer pool.Close()
	next := time.Duration(0)
	observe := func(now time.Duration, l *methodsim.Ledger) (bool, error) {
		if now < next {
			return false, nil
		}
		next = now + compressionEvalEvery
		a, err := meanAcc(compressionEvalSamples)
		if err != nil {
			return true, err
		}
		var sent int64
		for i := range n {
			sent += l.Peer(i).BytesSent
		}
		cell.bytes = append(cell.bytes, float64(sent)/float64(n))
		cell.acc = append(cell.acc, a)
		return false, nil
	}
	res, err := methodsim.CoreRun{Peers: sp.peers, Devices: devs, Links: links, Cores: sp.cores, Graph: sp.graph,
		Tick: tick, Duration: time.Hour, EvalSamples: 256, Pool: pool, Ctx: ctx, Observe: observe, AfterPeer: afterPeer, Codec: cfg}.Run()
	if err != nil {
		return cell, err
	}
	if !res.Done {
		return cell, fmt.Errorf("not every peer finished its %d rounds in %v of virtual time", rounds, res.Time)
	}
	end, err := meanAcc(compressionEvalSamples)
	if err != nil {
		return cell, err
	}
	window.end(res.Models)
	if cell.final, cell.end, err = window.accuracy(ev, sp.tests); err != nil {
		return cell, err
	}
	var sent int64
	for i := range n {
		sent += res.Ledger.Peer(i).BytesSent
	}
	cell.bytes = append(cell.bytes, float64(sent)/float64(n))
	cell.acc = append(cell.acc, end)
	cell.refusals = res.CodecRefusals
	return cell, nil
}

// compressionMeanAcc is the mean over the peers of model i's accuracy on
// the first samples of tests[i] (all of them if samples is 0); a nil
// model counts as 0.
func compressionMeanAcc(ev *learn.Evaluator, models [][]float32, tests []*data.Dataset, samples int) (float64, error) {
	var sum float64
	for i, model := range models {
		if model == nil {
			continue
		}
		t := tests[i]
		k := t.Len()
		if samples > 0 {
			k = min(k, samples)
		}
		mt, err := ev.Evaluate(model, t.X[:k*t.Features()], t.Y[:k])
		if err != nil {
			return 0, err
		}
		sum += mt.Accuracy
	}
	return sum / float64(len(models)), nil
}

// compressionReport prints the table, writes CSV and PNG, and returns
// the summary line: the best codec is the one whose worst method's bytes
// ratio is highest among those whose every method keeps its final
// accuracy within 0.5 points of float32 (if none does, the one with the
// smallest gap). A gap is the mean over the seeds of the paired
// difference, float32's final less the codec's in the same seed (same
// partition, initial model and schedule), printed with its standard
// error; "end gap" is the same for the single end measurement.
func compressionReport(o scenario.Options, ds string, plan compressionPlan, cells []compressionCell) (string, error) {
	type key struct {
		method string
		seed   uint64
	}
	ref := map[key]compressionCell{}
	refEnd, refSeeds := map[string]float64{}, map[string]float64{}
	for _, c := range cells {
		if c.codec == compressionCodecs[0] {
			ref[key{c.method, c.seed}] = c
			refEnd[c.method] += last(c.acc)
			refSeeds[c.method]++
		}
	}
	target := map[string]float64{}
	for m, sum := range refEnd {
		target[m] = sum/refSeeds[m] - compressionTargetGap
	}
	// Per method and codec, over the seeds: mean final accuracy, the
	// bytes to the method's target in each seed (NaN: missed) and how
	// many reached it.
	type mean struct {
		final, sent              float64
		toTarget                 []float64 // one a seed, NaN where it missed
		gaps, endGaps            []float64 // paired, in points, one a seed
		seeds, reached, refusals int
	}
	type mc struct{ method, codec string }
	agg := map[mc]*mean{}
	var rows [][]any
	for _, c := range cells {
		r := ref[key{c.method, c.seed}]
		b := c.bytesTo(target[c.method])
		a := agg[mc{c.method, c.codec}]
		if a == nil {
			a = &mean{}
			agg[mc{c.method, c.codec}] = a
		}
		a.seeds++
		a.final += c.final
		a.gaps = append(a.gaps, 100*(r.final-c.final))
		a.endGaps = append(a.endGaps, 100*(r.end-c.end))
		a.sent += last(c.bytes)
		a.refusals += c.refusals
		a.toTarget = append(a.toTarget, b)
		if !math.IsNaN(b) {
			a.reached++
		}
		rows = append(rows, []any{c.method, c.codec, c.seed, c.final, c.end, last(c.bytes), b, 100 * (r.final - c.final), 100 * (r.end - c.end), c.refusals})
	}
	if err := report.WriteCSV(filepath.Join(o.OutDir, "compression.csv"),
		[]string{"method", "codec", "seed", "final_acc", "end_acc", "bytes_per_peer", "bytes_to_target", "acc_gap_points", "end_gap_points", "refused_deltas"}, rows); err != nil {
		return "", err
	}
	type codecScore struct{ ratio, gap float64 }
	score := map[string]*codecScore{}
	fmt.Fprintf(o.Stdout, "final: each peer's mean accuracy over the models it ended its last %d of %d rounds on; gap: float32's final less the codec's, paired by seed, mean and standard error (se) in points; end gap: the same for the model at the end alone\n", compressionWindow(plan.rounds), plan.rounds)
	fmt.Fprintf(o.Stdout, "%-8s %-16s %8s %10s %14s %7s %8s %6s %8s %6s\n", "method", "codec", "final", "MB/peer", "MB to tgt", "ratio", "gap pts", "se", "end gap", "se")
	for _, m := range plan.methods {
		r := agg[mc{m, plan.codecs[0]}]
		for _, c := range plan.codecs {
			a := agg[mc{m, c}]
			k := float64(a.seeds)
			// The ratio of the medians over the seeds, a missed target
			// counting as infinite bytes (a median of right-censored
			// times to the target): a codec that missed in half the
			// seeds or more scores 0, and so does any codec where
			// float32 itself did (no reference). One seed's miss near
			// the line (the target sits 2 points under float32's mean
			// end, so some seeds of every codec end just short of it)
			// no longer scores 0.
			rm, am := censoredMedian(r.toTarget), censoredMedian(a.toTarget)
			ratio := rm / am
			if math.IsInf(rm, 1) || math.IsInf(am, 1) {
				ratio = 0
			}
			gap, se := meanSE(a.gaps)
			endGap, endSE := meanSE(a.endGaps)
			s := score[c]
			if s == nil {
				s = &codecScore{ratio: math.Inf(1), gap: math.Inf(-1)}
				score[c] = s
			}
			s.ratio, s.gap = min(s.ratio, ratio), max(s.gap, gap)
			tgt := "missed"
			if !math.IsInf(am, 1) {
				tgt = fmt.Sprintf("%.3f", am/1e6)
			}
			if a.reached < a.seeds {
				tgt += fmt.Sprintf(" (%d/%d)", a.reached, a.seeds)
			}
			fmt.Fprintf(o.Stdout, "%-8s %-16s %8.4f %10.3f %14s %7.2f %8.2f %6.2f %8.2f %6.2f\n", m, c, a.final/k, a.sent/k/1e6, tgt, ratio, gap, se, endGap, endSE)
		}
	}
	for _, m := range plan.methods {
		p := report.LinePlot{Title: fmt.Sprintf("%s on %s, seed %d: accuracy against bytes a peer sent", m, ds, o.Seed), XLabel: "MB sent per peer", YLabel: "mean accuracy", LogX: true}
		for _, c := range cells {
			if c.method != m || c.seed != o.Seed {
				continue
			}
			var x, y []float64
			for k := range c.bytes {
				if c.bytes[k] > 0 {
					x, y = append(x, c.bytes[k]/1e6), append(y, c.acc[k])
				}
			}
			p.Add(c.codec, x, y)
		}
		if err := p.Save(filepath.Join(o.OutDir, "compression-"+m+".png")); err != nil {
			return "", err
		}
	}
	best, bestOK := "", false
	for _, name := range plan.codecs[1:] {
		s := score[name]
		ok := s.gap <= 0.5
		switch {
		case best == "":
			best, bestOK = name, ok
		case ok && (!bestOK || s.ratio > score[best].ratio):
			best, bestOK = name, true
		case !ok && !bestOK && s.gap < score[best].gap:
			best = name
		}
	}
	s := score[best]
	return fmt.Sprintf("scenario=compression dataset=%s best=%s bytes_ratio=%.2f acc_gap=%.2f methods=%s",
		ds, best, s.ratio, s.gap, strings.Join(plan.methods, ",")), nil
}

// compressionRunFedLay runs FedLay's MEP (learn.Peer's own, in dflsim's
// AsyncRun) on the overlay's neighbour sets for rounds rounds: the same
// devices and links as the methods' runs. Its accuracy is every peer's
// published model on the first compressionEvalSamples*n test samples
// (dflsim measures on one test set) for the curve; the final as the
// methods' (own-distribution test splits).
func compressionRunFedLay(ctx context.Context, cell compressionCell, cfg modelcodec.Config, spec task.Spec, n, rounds int, seed uint64, train, test *data.Dataset) (compressionCell, error) {
	const tick = 100 * time.Millisecond
	spec.Aggregator = "fedlay"
	sp, err := specPeers(spec, n, train, test, tick, nil)
	if err != nil {
		return cell, err
	}
	g, err := topology.NewGraph(n)
	if err != nil {
		return cell, err
	}
	for i, nb := range sp.graph {
		for _, j := range nb {
			if _, err := g.AddEdge(i, j); err != nil {
				return cell, err
			}
		}
	}
	period := time.Duration(spec.PeriodMS) * time.Millisecond
	samples := spec.Batch * spec.LocalSteps
	window := newRoundModels(n, compressionWindow(rounds))
	afterTrain := func(i int) {
		p := sp.peers.Peers[i]
		window.seen(i, p.Metrics().Rounds, p.Published())
	}
	pool := dflsim.NewPool(0)
	defer pool.Close()
	res, err := dflsim.AsyncRun{
		Peers: sp.peers.Peers, Tick: tick,
		TrainTime: time.Duration(float64(samples) / 2000 * float64(time.Second)), // the methods' 2,000 samples/s
		Duration:  time.Duration(rounds+2) * period,
		Latency:   simnet.Uniform{Min: 20 * time.Millisecond, Max: 60 * time.Millisecond},
		Graph:     g,
		Eval:      dflsim.Eval{Test: test, Samples: compressionEvalSamples * n, Model: dflsim.Trained},
		EvalEvery: compressionEvalEvery, RoundUnit: period, Seed: seed, Pool: pool, Ctx: ctx, Codec: cfg,
		AfterTrain: afterTrain,
	}.Run()
	if err != nil {
		return cell, err
	}
	for _, pt := range res.Points {
		cell.bytes = append(cell.bytes, pt.WireBytes)
		cell.acc = append(cell.acc, pt.Acc.Mean)
	}
	// The final accuracy as the methods' is measured: each peer's
	// published models of its last rounds on its whole own-distribution
	// test split.
	ev, err := learn.NewEvaluator(sp.peers.Peers[0].Config().Arch)
	if err != nil {
		return cell, err
	}
	models := make([][]float32, n)
	for i, p := range sp.peers.Peers {
		models[i] = p.Published()
	}
	window.end(models)
	cell.final, cell.end, err = window.accuracy(ev, sp.tests)
	return cell, err
}

// meanSE returns the mean of v and its standard error (the sample
// standard deviation over sqrt(len(v))); the error is 0 for fewer than
// two values.
// censoredMedian is the median of bytes to a target over seeds, NaN (a
// seed that missed it) counting as +Inf; +Inf when half the seeds or
// more missed, or when v is empty.
func censoredMedian(v []float64) float64 {
	s := make([]float64, len(v))
	for i, x := range v {
		if math.IsNaN(x) {
			x = math.Inf(1)
		}
		s[i] = x
	}
	slices.Sort(s)
	n := len(s)
	switch {
	case n == 0:
		return math.Inf(1)
	case n%2 == 1:
		return s[n/2]
	case math.IsInf(s[n/2], 1):
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func meanSE(v []float64) (mean, se float64) {
	if len(v) == 0 {
		return 0, 0
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1) / float64(len(v)))
}
