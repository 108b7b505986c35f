package scenario

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/peerlearn/peerlearn/internal/report"
	"github.com/peerlearn/peerlearn/sim/dflsim"
)

// byzSummaryF is the attacker fraction of the summary line.
const byzSummaryF = 0.2

// seedsOf lists the study's seeds.
func (s *byzStudy) seedsOf(o Options) []uint64 { return s.p.seedList(o.Seed) }

// gap is plain FedLay's no-attack accuracy minus rule's under attack at
// f, in points, for one seed.
func (s *byzStudy) gap(f float64, seed uint64, rule, attack string) float64 {
	return 100 * (s.acc[byzKey{0, seed, "fedlay", dflsim.AttackNone}] - s.acc[byzKey{f, seed, rule, attack}])
}

// worstGap is rule's largest gap at f over the (non-adaptive) attacks
// and the seeds (-Inf when a subset did not run the rule at f).
func (s *byzStudy) worstGap(o Options, f float64, rule string) (gap float64, attack string) {
	return s.worstGapOver(o, f, rule, s.p.attacks)
}

// worstGapOver is rule's largest gap at f over attacks and the seeds
// (-Inf when none ran).
func (s *byzStudy) worstGapOver(o Options, f float64, rule string, attacks []string) (gap float64, attack string) {
	gap = math.Inf(-1)
	for _, a := range attacks {
		for _, seed := range s.seedsOf(o) {
			if _, ran := s.acc[byzKey{f, seed, rule, a}]; !ran {
				continue
			}
			if g := s.gap(f, seed, rule, a); g > gap {
				gap, attack = g, a
			}
		}
	}
	return gap, attack
}

// meanAcc is rule's accuracy under attack at f averaged over the seeds,
// in percent.
func (s *byzStudy) meanAcc(o Options, f float64, rule, attack string) float64 {
	var sum float64
	for _, seed := range s.seedsOf(o) {
		sum += s.acc[byzKey{f, seed, rule, attack}]
	}
	return 100 * sum / float64(len(s.seedsOf(o)))
}

// best is the robust rule with the smallest worst gap at f.
func (s *byzStudy) best(o Options, f float64) (rule string, gap float64) {
	gap = math.Inf(1)
	for _, r := range s.p.rules {
		if !isRobustRule(r) {
			continue
		}
		if g, _ := s.worstGap(o, f, r); !math.IsInf(g, -1) && g < gap { // -Inf: not run under attack
			rule, gap = r, g
		}
	}
	return rule, gap
}

func (s *byzStudy) report(o Options, out io.Writer) (wrote, summary string, err error) {
	short := map[string]string{dflsim.AttackLieAll: "lie-all"}
	head := []string{"f", "rule", "none", "absent"}
	for _, a := range s.p.attacks {
		head = append(head, cmpOr(short[a], a))
	}
	head = append(head, "worst gap", "worst attack")
	fmt.Fprintf(out, "  honest peers' mean test accuracy %% (mean over %d seeds); none = the rule without attack (f = 0); absent = the attackers send nothing (what a perfect defence leaves; not an attack); gap = plain fedlay's no-attack accuracy minus the cell, worst over attacks and seeds\n", len(s.seedsOf(o)))
	tw := newTable(out, strings.Join(head, "\t"))
	var rows [][]any
	plot := report.LinePlot{Title: "Honest accuracy under the worst attack, FedLay overlay, MNIST",
		XLabel: "attackers (% of peers)", YLabel: "honest peers' mean test accuracy (%)", LegendLeft: true}
	attacked := slices.Sorted(slices.Values(s.p.fractions[1:]))
	for _, rule := range s.p.rules {
		none := s.meanAcc(o, 0, rule, dflsim.AttackNone)
		xs, ys := []float64{0}, []float64{none}
		for _, f := range attacked {
			cells := []string{fmt.Sprintf("%g", f), rule, fmt.Sprintf("%.2f", none), fmt.Sprintf("%.2f", s.meanAcc(o, f, rule, dflsim.AttackAbsent))}
			worstAcc := math.Inf(1)
			for _, a := range s.p.attacks {
				acc := s.meanAcc(o, f, rule, a)
				worstAcc = min(worstAcc, acc)
				cells = append(cells, fmt.Sprintf("%.2f", acc))
			}
			g, ga := s.worstGap(o, f, rule)
			cells = append(cells, gapOrNA(g), ga)
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
			if !math.IsInf(worstAcc, 1) { // a subset without the attacks
				xs, ys = append(xs, 100*f), append(ys, worstAcc)
			}
		}
		plot.Add(rule, xs, ys)
	}
	tw.Flush()
	for _, seed := range s.seedsOf(o) {
		for _, f := range s.p.allFractions() {
			for _, a := range s.attacksAt(f) {
				for _, rule := range s.p.rulesAt(f) {
					k := byzKey{f, seed, rule, a}
					asr := ""
					if v, ok := s.asr[k]; ok {
						asr = fmt.Sprintf("%.4f", v)
					}
					rows = append(rows, []any{f, seed, rule, a, s.acc[k], s.gap(f, seed, rule, a), asr})
				}
			}
		}
	}
	// A subset without the default defence has no cost to print (its
	// accuracy would read as 0).
	defaultRan := slices.Contains(s.p.rulesAt(0), byzDefault)
	cost := math.Inf(-1)
	for _, seed := range s.seedsOf(o) {
		cost = max(cost, s.gap(0, seed, byzDefault, dflsim.AttackNone))
	}
	if defaultRan {
		fmt.Fprintf(out, "  cost of the default defence without attack (fedlay minus %s, worst seed): %.2f points\n", byzDefault, cost)
	} else {
		fmt.Fprintf(out, "  cost of the default defence without attack: not run (subset without %s)\n", byzDefault)
	}
	for _, f := range attacked {
		g0, a0 := s.worstGap(o, f, "fedlay")
		b, g1 := s.best(o, f)
		plain := fmt.Sprintf("%.2f (%s)", g0, a0)
		if math.IsInf(g0, -1) {
			plain = "not run (subset)"
		}
		best := "none run under attack (subset)"
		if !math.IsInf(g1, 0) {
			best = fmt.Sprintf("%s %.2f", b, g1)
		}
		fmt.Fprintf(out, "  f=%g: worst gap plain fedlay %s, best defence %s\n", f, plain, best)
	}
	fmt.Fprintf(out, "  honest peers exposed (of the honest; per seed): half or more of the neighbours Byzantine / a strict majority / no honest neighbour\n")
	for _, f := range attacked {
		var cells []string
		for _, seed := range s.seedsOf(o) {
			e := s.exposure[byzKey{f: f, seed: seed}]
			cells = append(cells, fmt.Sprintf("seed %d: %d / %d / %d of %d (mean degree %.1f)", seed, e.half, e.majority, e.none, e.honest, e.degree))
		}
		fmt.Fprintf(out, "    f=%g: %s\n", f, strings.Join(cells, "; "))
	}
	for _, f := range attacked {
		for _, rule := range s.p.rules {
			if !isRobustRule(rule) || len(s.p.attacks) == 0 {
				continue // no ordinary attack run: the adaptive lines below
			}
			var cells []string
			for _, seed := range s.seedsOf(o) {
				g, a := math.Inf(-1), ""
				for _, at := range s.p.attacks {
					if v := s.gap(f, seed, rule, at); v > g {
						g, a = v, at
					}
				}
				cells = append(cells, fmt.Sprintf("%.2f (%s)", g, a))
			}
			fmt.Fprintf(out, "  f=%g %s worst gap per seed: %s\n", f, rule, strings.Join(cells, " / "))
		}
	}
	if defaultRan {
		var costs []string
		for _, seed := range s.seedsOf(o) {
			costs = append(costs, fmt.Sprintf("%.2f", s.gap(0, seed, byzDefault, dflsim.AttackNone)))
		}
		fmt.Fprintf(out, "  cost of the default defence without attack per seed: %s points\n", strings.Join(costs, " / "))
	}
	s.reportCosts(o, out)
	s.reportAdaptive(o, out, attacked)
	s.reportBackdoor(o, out)
	s.reportVictims(o, out)
	s.reportHealth(o, out)
	fmt.Fprintf(out, "  run time %.0f s\n", s.wall.Seconds())
	if err := report.WriteCSV(filepath.Join(o.OutDir, "byzantine.csv"),
		[]string{"f", "seed", "rule", "attack", "honest_acc", "gap_points", "backdoor_asr"}, rows); err != nil {
		return "", "", err
	}
	if err := plot.Save(filepath.Join(o.OutDir, "byzantine_worst.png")); err != nil {
		return "", "", err
	}
	return "byzantine.csv, byzantine_worst.png to " + o.OutDir, s.summary(o), nil
}

// summary is the scenario's last line. A subset may not have run plain
// fedlay under attack, or any robust rule, at byzSummaryF: that gap is
// NA (and best=NA), never a made-up number.
func (s *byzStudy) summary(o Options) string {
	g0, _ := s.worstGap(o, byzSummaryF, "fedlay")
	b, g1 := s.best(o, byzSummaryF)
	if b == "" {
		b = "NA"
	}
	ga, _ := s.worstGapOver(o, byzSummaryF, byzDefault, s.p.adaptive)
	asr := "NA"
	if w, ok := s.worstASR(o, byzDefault); ok {
		asr = fmt.Sprintf("%.2f", 100*w)
	}
	return fmt.Sprintf("scenario=byzantine f=%g worst_gap_none=%s worst_gap_best=%s worst_gap_adaptive=%s backdoor_asr=%s best=%s",
		byzSummaryF, gapOrNA(g0), gapOrNA(g1), gapOrNA(ga), asr, b)
}

// gapOrNA formats a worst gap, NA when no run gave one (+-Inf).
func gapOrNA(g float64) string {
	if math.IsInf(g, 0) {
		return "NA"
	}
	return fmt.Sprintf("%.2f", g)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
