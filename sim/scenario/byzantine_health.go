package scenario

import (
	"fmt"
	"io"
	"strings"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/health"
	"github.com/peerlearn/peerlearn/sim/dflsim"
	"github.com/peerlearn/peerlearn/theory/topology"
	"github.com/peerlearn/peerlearn/types/ident"
)

// The neighbourhood check (issue #26 item 3, engine/health) in the lab: a
// rule named with healthSuffix ("clipped-fedlay+health") is the rule
// before the suffix with every honest peer running the check
// (dflsim.Health: health.DefaultConfig for the task's classes, scored on
// its own shard, a new FedLay placement when the check asks; the
// subset's keys holdout, healthref and patience vary it, byzSelectEnv). Its false alarms are the honest peers that were ever
// Captured in a run without attack, its false moves their new
// placements.
const healthSuffix = "+health"

// splitHealth returns the aggregation rule of a lab rule name and whether
// the check runs.
func splitHealth(rule string) (base string, check bool) {
	return strings.CutSuffix(rule, healthSuffix)
}

// isRobustRule reports whether the lab rule's aggregation rule is robust.
func isRobustRule(rule string) bool {
	base, _ := splitHealth(rule)
	base, _, _ = splitScreen(base)
	base, _ = splitDrift(base)
	return aggregate.IsRobustName(base)
}

// victimLocal is the victim placement's local-only reference: the victim
// exchanges with nobody (its links cut both ways) and the others run
// without attack; the goal is that a victim keeps at least this.
const victimLocal = "local-only"

// healthCheck is the check of one run: honest peers scored on what they
// held out (b.Held), or on their shards when nothing was (holdout=0), at
// most healthSamples of it.
func (s *byzStudy) healthCheck(b *dflsim.Built, seed uint64, byz []bool) *dflsim.Health {
	ids := make([]ident.Peer, s.p.peers)
	on := make([]*data.Dataset, s.p.peers)
	for i := range ids {
		ids[i] = dflsim.PeerID(seed, i)
		on[i] = b.Local[i]
		if b.Held[i] != nil {
			on[i] = b.Held[i]
		}
	}
	spaces := s.p.spaces
	if s.p.stay {
		spaces = 0 // the check narrows trust only
	}
	return &dflsim.Health{Config: s.healthConfig(), Data: on, Samples: healthSamples, Skip: byz, IDs: ids, Spaces: spaces}
}

// healthConfig is the check's rule as the subset's keys set it
// (healthref, patience, quorum, echo).
func (s *byzStudy) healthConfig() health.Config {
	cfg := health.DefaultConfig().ForClasses(s.arch.Classes)
	cfg.AgainstBest = s.p.healthBest
	if s.p.patience > 0 {
		cfg.Patience = s.p.patience
	}
	if s.p.quorum > 0 {
		cfg.Quorum = s.p.quorum
	}
	if s.p.echo != nil {
		cfg.EchoBelow = *s.p.echo
	}
	return cfg
}

// healthSamples bounds what a peer scores models on each round (the lab's
// shards hold about 150).
const healthSamples = 200

// isolated returns g without node v's edges.
func isolated(g *topology.Graph, v int) (*topology.Graph, error) {
	out, err := topology.NewGraph(g.N())
	if err != nil {
		return nil, err
	}
	for u := range g.N() {
		for _, w := range g.Neighbors(u) {
			if u < w && u != v && w != v {
				if _, err := out.AddEdge(u, w); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// alarms is the share of the honest peers the check ever found Captured,
// and the new placements they took in all.
func alarms(h *dflsim.Health, byz []bool) (share float64, moves int) {
	st, mv := h.Statuses()
	for i := range st {
		if !byz[i] {
			moves += mv[i]
		}
	}
	return capturedShare(st, byz), moves
}

// capturedShare is the share of the honest peers (byz[i] false) whose
// check ever found them Captured.
func capturedShare(st []health.Status, byz []bool) float64 {
	honest, hit := 0, 0
	for i, s := range st {
		if byz[i] {
			continue
		}
		honest++
		if s.Captures > 0 {
			hit++
		}
	}
	return float64(hit) / float64(max(honest, 1))
}

// healthLog is a run's check for its log line ("" without the check).
func healthLog(r byzResult) string {
	if !r.checked {
		return ""
	}
	line := fmt.Sprintf(" health_alarms=%.3f health_moves=%d victim_captures=%d victim_moves=%d", r.alarms, r.moves, r.victimCaptures, r.victimMoves)
	if share, ok := r.scores.Share(); ok {
		line += fmt.Sprintf(" attacker_scored_lower=%.3f", share)
	}
	return line
}

// reportHealth prints, for each rule run with the check, its false
// alarms (the share of honest peers it ever found captured, per seed)
// without attack and with the attackers absent, and, under victim
// placement, the victim's accuracy per seed beside its local-only one.
func (s *byzStudy) reportHealth(o Options, out io.Writer) {
	for _, rule := range s.p.rules {
		if _, check := splitHealth(rule); !check {
			continue
		}
		fmt.Fprintf(out, "  neighbourhood check (%s, %g of each shard held out to score on, against best %v, patience %d, quorum %g): honest peers it ever found captured (their new placements, all orders), per seed:", rule, s.p.holdout, s.p.healthBest, s.p.patience, s.healthConfig().Quorum)
		runs := []byzKey{{f: 0, attack: dflsim.AttackNone}}
		for _, f := range s.p.fractions[1:] {
			runs = append(runs, byzKey{f: f, attack: dflsim.AttackAbsent})
		}
		for _, k := range runs {
			var cells []string
			for _, seed := range s.seedsOf(o) {
				key := byzKey{k.f, seed, rule, k.attack}
				cells = append(cells, fmt.Sprintf("%.3f (%d)", s.alarms[key], s.moves[key]))
			}
			fmt.Fprintf(out, " f=%g %s %s;", k.f, k.attack, strings.Join(cells, " / "))
		}
		fmt.Fprintln(out)
		s.reportSeparation(o, out, rule)
		attacks := s.victimAttacks()
		if len(attacks) == 0 {
			continue
		}
		for _, a := range attacks {
			if a == victimLocal {
				continue
			}
			var cells []string
			kept := 0
			for _, seed := range s.seedsOf(o) {
				v := s.victimAcc[byzKey{byzSummaryF, seed, rule, a + victimSuffix}]
				l := s.victimAcc[byzKey{byzSummaryF, seed, rule, victimLocal + victimSuffix}]
				if v >= l {
					kept++
				}
				cells = append(cells, fmt.Sprintf("%.2f (local-only %.2f, %d moves)", 100*v, 100*l, s.victimMoves[byzKey{byzSummaryF, seed, rule, a + victimSuffix}]))
			}
			fmt.Fprintf(out, "    victim under %s: %s; at least local-only at %d of %d seeds\n", a, strings.Join(cells, " / "), kept, len(cells))
		}
	}
}

// reportSeparation prints, for rule (run with the check), per fraction
// and attack, the share of the (attacker, honest neighbour) pairs in
// which the attacker's model scored lower on the receiver's data, per
// seed (dflsim.Separation): how well the check's scores can tell them
// apart. Nothing for a cell without such pairs.
func (s *byzStudy) reportSeparation(o Options, out io.Writer, rule string) {
	for _, f := range s.p.fractions[1:] {
		for _, a := range s.attacksAt(f) {
			var cells []string
			scored := false
			for _, seed := range s.seedsOf(o) {
				share, ok := s.scores[byzKey{f, seed, rule, a}].Share()
				if !ok {
					cells = append(cells, "n/a")
					continue
				}
				cells, scored = append(cells, fmt.Sprintf("%.3f", share)), true
			}
			if !scored {
				continue
			}
			fmt.Fprintf(out, "    f=%g %s: the attackers' models scored below an honest neighbour's on the receiver's data in %s of the pairs (per seed; 0.5: the scores cannot tell them apart)\n", f, a, strings.Join(cells, " / "))
		}
	}
}
