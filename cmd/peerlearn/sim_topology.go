package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/peerlearn/peerlearn/internal/progress"
	"github.com/peerlearn/peerlearn/internal/report"
	"github.com/peerlearn/peerlearn/theory/topology"
	"github.com/peerlearn/peerlearn/types/ident"
)

func init() {
	register(&command{
		name:    "sim topology",
		summary: "FedLay vs best-of-N random regular graphs, ring and Chord (FedLay paper Fig. 3)",
		run:     runSimTopology,
	})
}

// topoConfig is one `sim topology` run.
type topoConfig struct {
	n, d, trials int
	seed         uint64
	out          string
	// progress receives the progress bar (io.Discard to hide it).
	progress io.Writer
}

// topoSweep is the Fig. 3 degree sweep; the requested -d is added to it.
var topoSweep = []int{4, 6, 8, 10, 12, 14}

func runSimTopology(ctx context.Context, args []string, stdout io.Writer, logf func(string, ...any)) error {
	fs := newFlags("sim topology")
	cfg := topoConfig{progress: os.Stderr}
	fs.IntVar(&cfg.n, "n", 300, "number of peers")
	fs.IntVar(&cfg.d, "d", 10, "node degree (even, 4 <= d < n); FedLay uses L = d/2 ring spaces")
	fs.IntVar(&cfg.trials, "trials", 100, "random d-regular graphs per degree (the paper's \"best of 100\")")
	fs.Uint64Var(&cfg.seed, "seed", 1, "random seed")
	fs.StringVar(&cfg.out, "out", "out/topology", "directory for the CSV and PNG plots")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if cfg.d < 4 || cfg.d%2 != 0 || cfg.d >= cfg.n {
		return fmt.Errorf("%w: -d %d with -n %d: want an even degree, 4 <= d < n", errUsage, cfg.d, cfg.n)
	}
	if cfg.trials < 1 {
		return fmt.Errorf("%w: -trials %d: want >= 1", errUsage, cfg.trials)
	}
	return simTopology(ctx, cfg, stdout, logf)
}

// topoRow is one degree of the sweep.
type topoRow struct {
	d      int
	fedlay topology.Metrics
	// best holds the best value of each metric over the random regular
	// graphs, each taken separately as in the paper (so Lambda and
	// ConvergenceFactor come from the best-cf graph, Diameter and
	// AvgShortestPath may come from others); mean holds their means.
	best, mean topology.Metrics
	// meanDiameter is the mean diameter (mean.Diameter is unset).
	meanDiameter float64
	// below is the fraction of random regular graphs whose convergence
	// factor beats FedLay's.
	below float64
}

func simTopology(ctx context.Context, cfg topoConfig, stdout io.Writer, logf func(string, ...any)) error {
	rng := rand.New(rand.NewPCG(cfg.seed, 0x7090))
	ids := make([]ident.Peer, cfg.n)
	for i := range ids {
		for j := 0; j < len(ids[i]); j += 8 {
			binary.LittleEndian.PutUint64(ids[i][j:], rng.Uint64())
		}
	}
	degrees := topoDegrees(cfg.n, cfg.d)
	bar := progress.New(cfg.progress, "random regular graphs", int64(len(degrees)*cfg.trials))
	rows := make([]topoRow, len(degrees))
	for i, d := range degrees {
		g, err := topology.FedLay(ids, d/2)
		if err != nil {
			return err
		}
		if rows[i].fedlay, err = topology.Evaluate(g); err != nil {
			return fmt.Errorf("FedLay d=%d: %w", d, err)
		}
		rrg, err := evaluateRegular(ctx, cfg.n, d, cfg.trials, rng, bar)
		if err != nil {
			return err
		}
		rows[i].d = d
		rows[i].best, rows[i].mean, rows[i].meanDiameter, rows[i].below = summarise(rrg, rows[i].fedlay.ConvergenceFactor)
	}
	bar.Finish()
	ring, err := evaluateFixed(topology.Ring(cfg.n))
	if err != nil {
		return fmt.Errorf("ring: %w", err)
	}
	chord, err := evaluateFixed(topology.Chord(cfg.n))
	if err != nil {
		return fmt.Errorf("Chord: %w", err)
	}

	printTopology(stdout, cfg, rows, ring, chord)
	if err := writeTopology(cfg.out, cfg.trials, rows, ring, chord); err != nil {
		return err
	}
	logf("wrote %s", filepath.Join(cfg.out, "{topology.csv,cf.png,diameter.png,asp.png}"))
	r := rows[slices.IndexFunc(rows, func(r topoRow) bool { return r.d == cfg.d })]
	a, b := r.fedlay.ConvergenceFactor, r.best.ConvergenceFactor
	fmt.Fprintf(stdout, "topology n=%d d=%d cf_fedlay=%.4f cf_best_rrg=%.4f ratio=%.4f\n", cfg.n, cfg.d, a, b, a/b)
	return nil
}

// topoDegrees is the sweep plus d, restricted to degrees below n.
func topoDegrees(n, d int) []int {
	ds := []int{d}
	for _, k := range topoSweep {
		if k < n {
			ds = append(ds, k)
		}
	}
	slices.Sort(ds)
	return slices.Compact(ds)
}

func evaluateFixed(g *topology.Graph, err error) (topology.Metrics, error) {
	if err != nil {
		return topology.Metrics{}, err
	}
	return topology.Evaluate(g)
}

// evaluateRegular measures trials random d-regular graphs on all CPUs.
// Each trial gets its own generator seeded from rng in trial order, so the
// results do not depend on scheduling. A disconnected draw (possible only
// for tiny n) is redrawn.
func evaluateRegular(ctx context.Context, n, d, trials int, rng *rand.Rand, bar *progress.Bar) ([]topology.Metrics, error) {
	seeds := make([][2]uint64, trials)
	for i := range seeds {
		seeds[i] = [2]uint64{rng.Uint64(), rng.Uint64()}
	}
	out := make([]topology.Metrics, trials)
	errs := make([]error, trials)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), trials) {
		wg.Go(func() {
			for i := range next {
				r := rand.New(rand.NewPCG(seeds[i][0], seeds[i][1]))
				for attempt := 0; ; attempt++ {
					g, err := topology.RandomRegular(n, d, r)
					if err == nil {
						out[i], err = topology.Evaluate(g)
					}
					if err == nil || attempt == 100 {
						errs[i] = err
						break
					}
				}
				bar.Add(1)
			}
		})
	}
	for i := range trials {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("random %d-regular graph, trial %d: %w", d, i, err)
		}
	}
	return out, nil
}

// summarise returns the per-metric best and the means over ms (the mean
// diameter separately, as a float), and the fraction of ms with a smaller
// convergence factor than cf.
func summarise(ms []topology.Metrics, cf float64) (best, mean topology.Metrics, meanDiam, below float64) {
	best = ms[0]
	for _, m := range ms {
		if m.ConvergenceFactor < best.ConvergenceFactor {
			best.Lambda, best.ConvergenceFactor = m.Lambda, m.ConvergenceFactor
		}
		best.Diameter = min(best.Diameter, m.Diameter)
		best.AvgShortestPath = min(best.AvgShortestPath, m.AvgShortestPath)
		mean.MeanDegree += m.MeanDegree
		mean.Lambda += m.Lambda
		mean.ConvergenceFactor += m.ConvergenceFactor
		mean.AvgShortestPath += m.AvgShortestPath
		meanDiam += float64(m.Diameter)
		if m.ConvergenceFactor < cf {
			below++
		}
	}
	k := float64(len(ms))
	mean.MeanDegree /= k
	mean.Lambda /= k
	mean.ConvergenceFactor /= k
	mean.AvgShortestPath /= k
	return best, mean, meanDiam / k, below / k
}

func printTopology(w io.Writer, cfg topoConfig, rows []topoRow, ring, chord topology.Metrics) {
	fmt.Fprintf(w, "FedLay vs best of %d random d-regular graphs, n=%d seed=%d (FedLay: one ID draw, L = d/2)\n", cfg.trials, cfg.n, cfg.seed)
	fmt.Fprintf(w, "%4s %8s | %9s %9s %9s %7s %8s | %5s %5s | %6s %6s\n",
		"d", "deg_fl", "cf_fedlay", "cf_best", "cf_mean", "ratio", "rrg<fl", "dm_fl", "dm_b", "asp_fl", "asp_b")
	for _, r := range rows {
		fmt.Fprintf(w, "%4d %8.3f | %9.4f %9.4f %9.4f %7.4f %7.0f%% | %5d %5d | %6.3f %6.3f\n",
			r.d, r.fedlay.MeanDegree, r.fedlay.ConvergenceFactor, r.best.ConvergenceFactor, r.mean.ConvergenceFactor,
			r.fedlay.ConvergenceFactor/r.best.ConvergenceFactor, 100*r.below,
			r.fedlay.Diameter, r.best.Diameter, r.fedlay.AvgShortestPath, r.best.AvgShortestPath)
	}
	for _, f := range []struct {
		name string
		m    topology.Metrics
	}{{"ring", ring}, {"Chord", chord}} {
		fmt.Fprintf(w, "%-5s degree %.3f: cf=%.4g diameter=%d asp=%.3f\n", f.name, f.m.MeanDegree, f.m.ConvergenceFactor, f.m.Diameter, f.m.AvgShortestPath)
	}
}

func writeTopology(dir string, trials int, rows []topoRow, ring, chord topology.Metrics) error {
	header := []string{"sweep_d", "graph", "trials", "mean_degree", "lambda", "convergence_factor", "diameter", "avg_shortest_path"}
	line := func(d any, graph string, trials int, m topology.Metrics) []any {
		return []any{d, graph, trials, m.MeanDegree, m.Lambda, m.ConvergenceFactor, m.Diameter, m.AvgShortestPath}
	}
	meanLine := func(r topoRow) []any {
		l := line(r.d, "rrg_mean", trials, r.mean)
		l[6] = r.meanDiameter
		return l
	}
	var csv [][]any
	var xs, cfF, cfB, cfM, dmF, dmB, aspF, aspB []float64
	for _, r := range rows {
		csv = append(csv, line(r.d, "fedlay", 1, r.fedlay), line(r.d, "rrg_best", trials, r.best), meanLine(r))
		xs = append(xs, float64(r.d))
		cfF, cfB, cfM = append(cfF, r.fedlay.ConvergenceFactor), append(cfB, r.best.ConvergenceFactor), append(cfM, r.mean.ConvergenceFactor)
		dmF, dmB = append(dmF, float64(r.fedlay.Diameter)), append(dmB, float64(r.best.Diameter))
		aspF, aspB = append(aspF, r.fedlay.AvgShortestPath), append(aspB, r.best.AvgShortestPath)
	}
	csv = append(csv, line("", "ring", 1, ring), line("", "chord", 1, chord))
	if err := report.WriteCSV(filepath.Join(dir, "topology.csv"), header, csv); err != nil {
		return err
	}
	best := fmt.Sprintf("Best of %d RRGs", trials)
	// Chord has a fixed degree: one dot, at that degree. The ring (cf ~ n²,
	// diameter n/2) would flatten every other curve: it is only in the
	// table and the CSV, as it is absent from the paper's Fig. 3.
	for _, p := range []struct {
		file, title, label string
		fedlay, best, mean []float64
		pick               func(topology.Metrics) float64
		logY               bool
	}{
		{"cf.png", "Convergence factor 1/(1-λ)²", "convergence factor", cfF, cfB, cfM, func(m topology.Metrics) float64 { return m.ConvergenceFactor }, true},
		{"diameter.png", "Diameter", "diameter (hops)", dmF, dmB, nil, func(m topology.Metrics) float64 { return float64(m.Diameter) }, false},
		{"asp.png", "Average shortest path", "average shortest path (hops)", aspF, aspB, nil, func(m topology.Metrics) float64 { return m.AvgShortestPath }, false},
	} {
		lp := report.LinePlot{Title: fmt.Sprintf("%s, n = %d", p.title, ring.Nodes), XLabel: "node degree d", YLabel: p.label, LegendLeft: true, LogY: p.logY}
		lp.Add("FedLay", xs, p.fedlay)
		lp.Add(best, xs, p.best)
		if p.mean != nil {
			lp.Add("RRG mean", xs, p.mean)
		}
		lp.Add("Chord", []float64{chord.MeanDegree}, []float64{p.pick(chord)})
		if err := lp.Save(filepath.Join(dir, p.file)); err != nil {
			return err
		}
	}
	return nil
}
