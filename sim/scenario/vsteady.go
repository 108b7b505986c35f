package scenario

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"

	"github.com/peerlearn/peerlearn/internal/progress"
	"github.com/peerlearn/peerlearn/internal/report"
	"github.com/peerlearn/peerlearn/theory/initgain"
	"github.com/peerlearn/peerlearn/theory/topology"
)

// Scenario vsteady reproduces Fig. 8 and Fig. 5c of the initialisation-
// gain paper (Badie-Modiri et al.) without training:
//
//  1. ‖v_steady‖ against n for the four families of Fig. 8 at the same
//     mean degree (the paper compares networks "with the same size and
//     (on expectation) the same number of links"): random 4-regular,
//     Erdős–Rényi G(n, p) with p = 4/(n-1) (giant component), Barabási–
//     Albert with m = 2 (mean degree 4) and power-law configuration
//     models p(k) ∝ k^-γ, γ = 2.5 and 3, k >= 2 (giant component; kmin 2
//     keeps the mean degree near 4 where kmin 1 would give ≈ 2 and a
//     40%-smaller giant component). n = 32..4096 by doubling, 20 graphs
//     per point; the exponent α of ‖v‖ = C·n^(-α) is fitted by least
//     squares on log-log over every graph (n = its node count) and set
//     against the closed forms of initgain (ApproxNorm).
//  2. The numeric model of Sec. 4.2 (initgain.SigmaModel): σ_an and σ_ap
//     over rounds on a random 32-regular graph, n = 256 (Fig. 5c), and on
//     a BA graph (m = 2, n = 256) where σ_ap levels off above 1/√n, at
//     σ_init·‖v_steady‖; simulated and in expectation.
//  3. Algorithm 1, line 2, end to end: push-sum gossip estimates n on one
//     graph per family, ApproxGain turns the estimate into a gain,
//     compared with ExactGain.
func init() {
	Register(Scenario{
		Name:    "vsteady",
		Summary: "‖v_steady‖ vs n per topology family (Fig. 8), σ_an/σ_ap model (Fig. 5c), gossip-estimated gain; no training",
		Run:     runVSteady,
	})
}

// vsFamily is one topology family of the sweep.
type vsFamily struct {
	name   string
	family initgain.Family
	gen    func(n int, rng *rand.Rand) (*topology.Graph, error)
}

func vsFamilies() []vsFamily {
	powerLaw := func(gamma float64) func(int, *rand.Rand) (*topology.Graph, error) {
		return func(n int, rng *rand.Rand) (*topology.Graph, error) {
			d, err := topology.PowerLawDegrees(n, gamma, 2, rng)
			if err != nil {
				return nil, err
			}
			g, err := topology.ConfigurationModel(d, rng)
			if err != nil {
				return nil, err
			}
			return g.LargestComponent(), nil
		}
	}
	return []vsFamily{
		{"rrg", initgain.Regular{}, func(n int, rng *rand.Rand) (*topology.Graph, error) {
			return topology.RandomRegular(n, 4, rng)
		}},
		{"er", initgain.ErdosRenyi{MeanDegree: 4}, func(n int, rng *rand.Rand) (*topology.Graph, error) {
			g, err := topology.ErdosRenyi(n, 4/float64(n-1), rng)
			if err != nil {
				return nil, err
			}
			return g.LargestComponent(), nil
		}},
		{"ba", initgain.BarabasiAlbert{M: 2}, func(n int, rng *rand.Rand) (*topology.Graph, error) {
			return topology.BarabasiAlbert(n, 2, rng)
		}},
		{"pl2.5", initgain.PowerLaw{Gamma: 2.5, KMin: 2}, powerLaw(2.5)},
		{"pl3", initgain.PowerLaw{Gamma: 3, KMin: 2}, powerLaw(3)},
	}
}

// vsConfig is the scale of a run.
type vsConfig struct {
	ns          []int
	seeds       int
	sigmaParams int
	sigmaRounds int
	sigmaRuns   int
	gossipN     int
}

func vsScale(quick bool) vsConfig {
	if quick {
		return vsConfig{ns: []int{32, 64, 128, 256, 512, 1024}, seeds: 6, sigmaParams: 500, sigmaRounds: 30, sigmaRuns: 2, gossipN: 256}
	}
	return vsConfig{ns: []int{32, 64, 128, 256, 512, 1024, 2048, 4096}, seeds: 20, sigmaParams: 2000, sigmaRounds: 40, sigmaRuns: 5, gossipN: 1024}
}

// vsPoint is the sweep result for one family and n.
type vsPoint struct {
	n                        int
	nodes, mean, std, approx float64
}

// vsteadyStudy is the scenario's run (see study): the sweep, the σ
// model and the gossip-estimated gain.
type vsteadyStudy struct {
	cfg    vsConfig
	fams   []vsFamily
	sweep  vsSweepResult
	sigma  []vsSigmaGraph
	gossip []vsGossipRow
}

func runVSteady(ctx context.Context, o Options) (string, error) {
	return runStudy(ctx, o, &vsteadyStudy{cfg: vsScale(o.Quick), fams: vsFamilies()})
}

func (s *vsteadyStudy) describe(o Options, out io.Writer) error {
	if o.OutDir == "" {
		return fmt.Errorf("vsteady: empty output folder")
	}
	if o.Quick {
		cfg := s.cfg
		fmt.Fprintf(out, "quick: n = 32..1024 (full: ..4096), %d graphs per point (full: 20), σ model %d runs × %d params × %d rounds (full: 5 × 2000 × 40), gossip on n = %d (full: 1024)\n",
			cfg.seeds, cfg.sigmaRuns, cfg.sigmaParams, cfg.sigmaRounds, cfg.gossipN)
	}
	return nil
}

func (s *vsteadyStudy) run(ctx context.Context, o Options) error {
	var err error
	if s.sweep, err = vsSweep(ctx, o, s.cfg, s.fams); err != nil {
		return err
	}
	if s.sigma, err = vsSigma(o, s.cfg); err != nil {
		return err
	}
	s.gossip, err = vsGossip(o, s.cfg, s.fams)
	return err
}

// report prints and writes the three parts; it prints no "wrote" line.
func (s *vsteadyStudy) report(o Options, out io.Writer) (wrote, summary string, err error) {
	if err := s.sweep.write(o.OutDir, s.fams); err != nil {
		return "", "", err
	}
	s.sweep.print(out, s.cfg, s.fams)
	if err := vsReportSigma(o.OutDir, out, s.cfg, s.sigma); err != nil {
		return "", "", err
	}
	if err := vsReportGossip(o.OutDir, out, s.cfg, s.gossip); err != nil {
		return "", "", err
	}
	return "", fmt.Sprintf("scenario=vsteady rrg_exponent=%.4f ba_exponent=%.4f", s.sweep.fits["rrg"].Alpha, s.sweep.fits["ba"].Alpha), nil
}

// vsRNG gives every (family, n, graph) its own stream of the run's seed.
func vsRNG(seed uint64, family, n, graph int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(family)<<48|uint64(n)<<16|uint64(graph)))
}

// vsSweepResult is the sweep: points[family][size], the fitted scaling
// law per family over every graph (fits) and over the closed form
// (approxFits), and the CSV rows.
type vsSweepResult struct {
	points           [][]vsPoint
	fits, approxFits map[string]initgain.ScalingLaw
	rows             [][]any
}

// vsSweep measures ‖v_steady‖ over the families and sizes and fits the
// scaling law per family.
func vsSweep(ctx context.Context, o Options, cfg vsConfig, fams []vsFamily) (vsSweepResult, error) {
	pw := o.Progress
	if pw == nil {
		pw = io.Discard
	}
	bar := progress.New(pw, "vsteady graphs", int64(len(fams)*len(cfg.ns)*cfg.seeds))
	defer bar.Finish()
	points := make([][]vsPoint, len(fams))
	fits := map[string]initgain.ScalingLaw{}
	approxFits := map[string]initgain.ScalingLaw{}
	var rows [][]any
	for fi, f := range fams {
		var allN, allNorm, fitN, fitApprox []float64
		for _, n := range cfg.ns {
			norms := make([]float64, cfg.seeds)
			nodes := 0.0
			for s := range cfg.seeds {
				if err := ctx.Err(); err != nil {
					return vsSweepResult{}, err
				}
				g, err := f.gen(n, vsRNG(o.Seed, fi, n, s))
				if err != nil {
					return vsSweepResult{}, fmt.Errorf("vsteady: %s n=%d: %w", f.name, n, err)
				}
				if norms[s], err = topology.VSteadyNorm(g); err != nil {
					return vsSweepResult{}, fmt.Errorf("vsteady: %s n=%d: %w", f.name, n, err)
				}
				nodes += float64(g.N()) / float64(cfg.seeds)
				allN = append(allN, float64(g.N()))
				allNorm = append(allNorm, norms[s])
				bar.Add(1)
			}
			mean, std := meanStd(norms)
			approx, err := initgain.ApproxNorm(nodes, f.family)
			if err != nil {
				return vsSweepResult{}, fmt.Errorf("vsteady: %v: %w", f.family, err)
			}
			p := vsPoint{n: n, nodes: nodes, mean: mean, std: std, approx: approx}
			points[fi] = append(points[fi], p)
			fitN, fitApprox = append(fitN, nodes), append(fitApprox, approx)
			rows = append(rows, []any{f.name, n, cfg.seeds, nodes, mean, std, approx, approx/mean - 1, 1 / math.Sqrt(nodes)})
		}
		fit, err := initgain.FitScaling(allN, allNorm)
		if err != nil {
			return vsSweepResult{}, fmt.Errorf("vsteady: fit %s: %w", f.name, err)
		}
		afit, err := initgain.FitScaling(fitN, fitApprox)
		if err != nil {
			return vsSweepResult{}, fmt.Errorf("vsteady: fit %s closed form: %w", f.name, err)
		}
		fits[f.name], approxFits[f.name] = fit, afit
	}
	return vsSweepResult{points: points, fits: fits, approxFits: approxFits, rows: rows}, nil
}

// write writes vsteady.csv, vsteady_fit.csv and vsteady.png.
func (r vsSweepResult) write(dir string, fams []vsFamily) error {
	if err := report.WriteCSV(filepath.Join(dir, "vsteady.csv"),
		[]string{"family", "n", "graphs", "mean_nodes", "mean_norm", "std_norm", "approx_norm", "approx_rel_err", "inv_sqrt_nodes"}, r.rows); err != nil {
		return err
	}
	var fitRows [][]any
	for _, f := range fams {
		fitRows = append(fitRows, []any{f.name, f.family.String(), r.fits[f.name].Alpha, r.fits[f.name].Prefactor, r.approxFits[f.name].Alpha})
	}
	if err := report.WriteCSV(filepath.Join(dir, "vsteady_fit.csv"),
		[]string{"family", "model", "alpha", "prefactor", "closed_form_alpha"}, fitRows); err != nil {
		return err
	}
	return vsPlot(filepath.Join(dir, "vsteady.png"), fams, r.points)
}

func vsPlot(path string, fams []vsFamily, points [][]vsPoint) error {
	p := report.LinePlot{Title: "‖v_steady‖ vs n (mean degree ≈ 4)", XLabel: "nodes n", YLabel: "‖v_steady‖", LogX: true, LogY: true, LegendTop: true}
	var refX, refY []float64
	for fi, f := range fams {
		var x, y []float64
		for _, pt := range points[fi] {
			x, y = append(x, pt.nodes), append(y, pt.mean)
		}
		p.Add(f.name, x, y)
	}
	for _, pt := range points[0] {
		refX, refY = append(refX, float64(pt.n)), append(refY, 1/math.Sqrt(float64(pt.n)))
	}
	p.Add("1/√n", refX, refY)
	return p.Save(path)
}

// print prints the sweep's table and fits.
func (r vsSweepResult) print(out io.Writer, cfg vsConfig, fams []vsFamily) {
	points, fits, approxFits := r.points, r.fits, r.approxFits
	fmt.Fprintf(out, "‖v_steady‖ (mean ± sd over %d graphs), closed form (initgain.ApproxNorm) and √n·‖v‖\n", cfg.seeds)
	fmt.Fprintf(out, "%-6s %6s %8s %10s %9s %10s %7s %6s\n", "family", "n", "nodes", "‖v‖", "sd", "closed", "err%", "√n‖v‖")
	for fi, f := range fams {
		for _, p := range points[fi] {
			fmt.Fprintf(out, "%-6s %6d %8.1f %10.5f %9.5f %10.5f %+7.2f %6.3f\n",
				f.name, p.n, p.nodes, p.mean, p.std, p.approx, 100*(p.approx/p.mean-1), p.mean*math.Sqrt(p.nodes))
		}
	}
	fmt.Fprintf(out, "\nfit ‖v‖ = C·n^-α (least squares on log-log, every graph)\n")
	fmt.Fprintf(out, "%-6s %-32s %7s %7s %12s\n", "family", "model", "α", "C", "closed-form α")
	for _, f := range fams {
		fmt.Fprintf(out, "%-6s %-32s %7.4f %7.4f %12.4f\n", f.name, f.family, fits[f.name].Alpha, fits[f.name].Prefactor, approxFits[f.name].Alpha)
	}
	fmt.Fprintln(out)
}

// meanStd returns the mean and sample standard deviation of x.
func meanStd(x []float64) (float64, float64) {
	m := 0.0
	for _, v := range x {
		m += v / float64(len(x))
	}
	if len(x) < 2 {
		return m, 0
	}
	ss := 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return m, math.Sqrt(ss / float64(len(x)-1))
}

// The σ model runs on vsSigmaN nodes from σ_init, with σ_noise of noise.
const vsSigmaN, vsSigmaInit, vsSigmaNoise = 256, 1.0, 1e-3

// vsSigmaGraph is the σ model on one graph: simulated and expected σ_an
// and σ_ap per round, and the limit σ_init·‖v_steady‖.
type vsSigmaGraph struct {
	name     string
	sim, exp []initgain.SigmaPoint
	limit    float64
}

// vsSigma runs the Sec. 4.2 model on a random 32-regular and a BA graph.
func vsSigma(o Options, cfg vsConfig) ([]vsSigmaGraph, error) {
	const n = vsSigmaN
	rrg, err := topology.RandomRegular(n, 32, vsRNG(o.Seed, 100, n, 0))
	if err != nil {
		return nil, err
	}
	ba, err := topology.BarabasiAlbert(n, 2, vsRNG(o.Seed, 101, n, 0))
	if err != nil {
		return nil, err
	}
	model := initgain.SigmaModel{Params: cfg.sigmaParams, Rounds: cfg.sigmaRounds, SigmaInit: vsSigmaInit, SigmaNoise: vsSigmaNoise}
	var out []vsSigmaGraph
	for gi, c := range []struct {
		name string
		g    *topology.Graph
	}{{"rrg32", rrg}, {"ba2", ba}} {
		sim, err := vsSimulate(model, c.g, cfg.sigmaRuns, o.Seed, gi)
		if err != nil {
			return nil, err
		}
		exp, err := model.Expected(c.g)
		if err != nil {
			return nil, err
		}
		nrm, err := topology.VSteadyNorm(c.g)
		if err != nil {
			return nil, err
		}
		out = append(out, vsSigmaGraph{name: c.name, sim: sim, exp: exp, limit: vsSigmaInit * nrm})
	}
	return out, nil
}

// vsReportSigma prints checkpoints of the σ model, writes one PNG per
// graph and sigma_model.csv.
func vsReportSigma(dir string, out io.Writer, cfg vsConfig, graphs []vsSigmaGraph) error {
	const n = vsSigmaN
	fmt.Fprintf(out, "σ model (Sec. 4.2): n = %d, %d params/node, σ_init = %g, σ_noise = %g; simulated (mean of %d runs) / expected; limit σ_init·‖v_steady‖\n",
		n, cfg.sigmaParams, vsSigmaInit, vsSigmaNoise, cfg.sigmaRuns)
	fmt.Fprintf(out, "%-6s %5s %11s %11s %11s %11s\n", "graph", "round", "σ_an sim", "σ_an exp", "σ_ap sim", "σ_ap exp")
	var rows [][]any
	for _, c := range graphs {
		sim, exp, limit := c.sim, c.exp, c.limit
		rounds := make([]float64, len(sim))
		series := make([][]float64, 5)
		for r := range sim {
			rows = append(rows, []any{c.name, r, sim[r].An, sim[r].Ap, exp[r].An, exp[r].Ap, limit})
			rounds[r] = float64(r)
			for i, v := range []float64{sim[r].An, sim[r].Ap, exp[r].An, exp[r].Ap, limit} {
				series[i] = append(series[i], v)
			}
			if r <= 2 || r == 5 || r%10 == 0 || r == len(sim)-1 {
				fmt.Fprintf(out, "%-6s %5d %11.4g %11.4g %11.4g %11.4g\n", c.name, r, sim[r].An, exp[r].An, sim[r].Ap, exp[r].Ap)
			}
		}
		fmt.Fprintf(out, "%-6s limit σ_ap = σ_init·‖v_steady‖ = %.5f (1/√n = %.5f)\n", c.name, limit, 1/math.Sqrt(n))
		p := report.LinePlot{Title: fmt.Sprintf("σ model on %s, n = %d (Fig. 5c)", c.name, n), XLabel: "round", YLabel: "σ", LogY: true, LegendLeft: true}
		for i, name := range []string{"σ_an simulated", "σ_ap simulated", "σ_an expected", "σ_ap expected", "σ_init·‖v_steady‖"} {
			p.Add(name, rounds, series[i])
		}
		if err := p.Save(filepath.Join(dir, "sigma_model_"+c.name+".png")); err != nil {
			return err
		}
	}
	fmt.Fprintln(out)
	return report.WriteCSV(filepath.Join(dir, "sigma_model.csv"),
		[]string{"graph", "round", "sigma_an_sim", "sigma_ap_sim", "sigma_an_expected", "sigma_ap_expected", "sigma_ap_limit"}, rows)
}

// vsSimulate averages σ_an and σ_ap over runs independent simulations
// of model on g (the paper's Fig. 5c shows means over realisations).
func vsSimulate(model initgain.SigmaModel, g *topology.Graph, runs int, seed uint64, graph int) ([]initgain.SigmaPoint, error) {
	var mean []initgain.SigmaPoint
	for r := range runs {
		sim, err := model.Simulate(g, vsRNG(seed, 102+graph, g.N(), r))
		if err != nil {
			return nil, err
		}
		if mean == nil {
			mean = make([]initgain.SigmaPoint, len(sim))
		}
		for i, p := range sim {
			mean[i].Round = p.Round
			mean[i].An += p.An / float64(runs)
			mean[i].Ap += p.Ap / float64(runs)
		}
	}
	return mean, nil
}

// vsGossipRow is the gossip-estimated gain on one family's graph.
type vsGossipRow struct {
	family             string
	nodes, rounds      int
	est, approx, exact float64
}

// vsGossip estimates n by push-sum on one graph per family (node 0
// initiates, synchronous rounds until every node is within 1% of the true
// count, at most 500), then compares ApproxGain at the median estimate
// with ExactGain.
func vsGossip(o Options, cfg vsConfig, fams []vsFamily) ([]vsGossipRow, error) {
	const maxRounds, target = 500, 0.01
	var rows []vsGossipRow
	for fi, f := range fams {
		g, err := f.gen(cfg.gossipN, vsRNG(o.Seed, 200+fi, cfg.gossipN, 0))
		if err != nil {
			return nil, err
		}
		est, rounds, err := pushSumCount(g, o.Seed+uint64(fi), maxRounds, target)
		if err != nil {
			return nil, fmt.Errorf("vsteady: gossip on %s: %w", f.name, err)
		}
		approx, err := initgain.ApproxGain(est, f.family)
		if err != nil {
			return nil, err
		}
		exact, err := initgain.ExactGain(g)
		if err != nil {
			return nil, err
		}
		rows = append(rows, vsGossipRow{f.name, g.N(), rounds, est, approx, exact})
	}
	return rows, nil
}

// vsReportGossip prints the gossip table and writes gossip.csv.
func vsReportGossip(dir string, out io.Writer, cfg vsConfig, rows []vsGossipRow) error {
	fmt.Fprintf(out, "gossip (push-sum from node 0) → ApproxGain vs ExactGain, one graph per family, n = %d\n", cfg.gossipN)
	fmt.Fprintf(out, "(err%% includes the graph-to-graph spread of ‖v_steady‖, large for heavy tails: see sd above)\n")
	fmt.Fprintf(out, "%-6s %6s %7s %9s %9s %9s %7s\n", "family", "nodes", "rounds", "n median", "approx", "exact", "err%")
	var csv [][]any
	for _, r := range rows {
		csv = append(csv, []any{r.family, r.nodes, r.rounds, r.est, r.approx, r.exact, r.approx/r.exact - 1})
		fmt.Fprintf(out, "%-6s %6d %7d %9.1f %9.3f %9.3f %+7.2f\n", r.family, r.nodes, r.rounds, r.est, r.approx, r.exact, 100*(r.approx/r.exact-1))
	}
	fmt.Fprintln(out)
	return report.WriteCSV(filepath.Join(dir, "gossip.csv"),
		[]string{"family", "nodes", "rounds", "n_estimate_median", "approx_gain", "exact_gain", "rel_err"}, csv)
}

// pushSumCount wires initgain.PushSum nodes over g and runs synchronous
// rounds until every estimate is within target of g.N() or maxRounds
// pass; it returns the median estimate and the rounds run.
func pushSumCount(g *topology.Graph, seed uint64, maxRounds int, target float64) (float64, int, error) {
	nodes := make([]*initgain.PushSum, g.N())
	for i := range nodes {
		p, err := initgain.NewPushSum(i, g.Neighbors(i), i == 0, rand.New(rand.NewPCG(seed, uint64(i))))
		if err != nil {
			return 0, 0, err
		}
		nodes[i] = p
	}
	n := float64(g.N())
	ests := make([]float64, len(nodes))
	for r := 1; ; r++ {
		var msgs []initgain.PushSumMsg
		for _, p := range nodes {
			if m, ok := p.Tick(); ok {
				msgs = append(msgs, m)
			}
		}
		for _, m := range msgs {
			if err := nodes[m.To].Step(m); err != nil {
				return 0, 0, err
			}
		}
		worst := 0.0
		for i, p := range nodes {
			e, ok := p.Estimate()
			if !ok {
				e = math.Inf(1)
			}
			ests[i] = e
			worst = max(worst, math.Abs(e/n-1))
		}
		if worst <= target || r == maxRounds {
			return median(ests), r, nil
		}
	}
}

// median returns the median of x (x is reordered).
func median(x []float64) float64 {
	slices.Sort(x)
	m := len(x) / 2
	if len(x)%2 == 1 {
		return x[m]
	}
	return (x[m-1] + x[m]) / 2
}
