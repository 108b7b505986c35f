package scenario

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/peerlearn/peerlearn/sim/dflsim"
)

// reportAdaptive prints the adaptive attacks' table: per fraction and
// rule, the honest accuracy under each (mean over the seeds) and the
// worst gap over them and the seeds. The summary's worst_gap_adaptive
// is the default rule's at byzSummaryF.
func (s *byzStudy) reportAdaptive(o Options, out io.Writer, attacked []float64) {
	if len(s.p.adaptive) == 0 {
		return
	}
	fmt.Fprintf(out, "  adaptive attacks (they know the rule and its parameters; honest accuracy %%, mean over the seeds; gap as above):\n")
	tw := newTable(out, strings.Join(append(append([]string{"f", "rule"}, s.p.adaptive...), "worst gap", "worst attack"), "\t"))
	for _, f := range attacked {
		for _, rule := range s.p.rules {
			cells := []string{fmt.Sprintf("%g", f), rule}
			for _, a := range s.p.adaptive {
				cells = append(cells, fmt.Sprintf("%.2f", s.meanAcc(o, f, rule, a)))
			}
			g, a := s.worstGapOver(o, f, rule, s.p.adaptive)
			cells = append(cells, gapOrNA(g), a)
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
	}
	tw.Flush()
	if !slices.Contains(s.p.rules, byzDefault) {
		return // a subset without the default rule
	}
	for _, f := range attacked {
		var cells []string
		for _, seed := range s.seedsOf(o) {
			g, a := math.Inf(-1), ""
			for _, at := range s.p.adaptive {
				if v := s.gap(f, seed, byzDefault, at); v > g {
					g, a = v, at
				}
			}
			cells = append(cells, fmt.Sprintf("%.2f (%s)", g, a))
		}
		fmt.Fprintf(out, "  f=%g %s worst adaptive gap per seed: %s\n", f, byzDefault, strings.Join(cells, " / "))
	}
}

// reportBackdoor prints, per rule, the backdoor's success rate and the
// honest peers' clean accuracy under it beside the rule's without
// attack, and the success rate the trigger has on the rule's model
// without attack, per seed (its base rate).
func (s *byzStudy) reportBackdoor(o Options, out io.Writer) {
	f := s.p.backdoorF
	if f == 0 {
		return
	}
	fmt.Fprintf(out, "  backdoor at f=%g: attack success rate %% (triggered test images of other classes classified %d; mean over the honest peers) and clean accuracy %%, per seed:\n", f, dflsim.BackdoorTarget)
	tw := newTable(out, "rule\tASR mean\tASR worst seed\tclean acc\tno-attack acc\tclean drop (points)\tno-attack ASR per seed")
	for _, rule := range s.p.rules {
		worst, _ := s.worstASR(o, rule)
		var asr float64
		for _, seed := range s.seedsOf(o) {
			asr += s.asr[byzKey{f, seed, rule, dflsim.AttackBackdoor}]
		}
		asr /= float64(len(s.seedsOf(o)))
		clean, none := s.meanAcc(o, f, rule, dflsim.AttackBackdoor), s.meanAcc(o, 0, rule, dflsim.AttackNone)
		var base []string // the trigger's base rate on the rule's clean model
		for _, seed := range s.seedsOf(o) {
			if v, ran := s.asr[byzKey{0, seed, rule, dflsim.AttackNone}]; ran {
				base = append(base, fmt.Sprintf("%.2f", 100*v))
			}
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%s\n", rule, 100*asr, 100*worst, clean, none, none-clean, strings.Join(base, " / "))
	}
	tw.Flush()
}

// worstASR is rule's largest backdoor success rate over the seeds, and
// whether any ran.
func (s *byzStudy) worstASR(o Options, rule string) (float64, bool) {
	w, ok := 0.0, false
	for _, seed := range s.seedsOf(o) {
		if v, ran := s.asr[byzKey{s.p.backdoorF, seed, rule, dflsim.AttackBackdoor}]; ran {
			w, ok = max(w, v), true
		}
	}
	return w, ok
}
