package scenario

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/peerlearn/peerlearn/sim/dflsim"
	"github.com/peerlearn/peerlearn/theory/topology"
)

// Victim placement (issue #26): the attackers of fraction byzSummaryF
// are placed around one honest peer first, every one of its overlay
// neighbours an attacker where their number allows, the rest at random,
// as an attacker grinding admissions for places next to a chosen victim
// would (docs/SECURITY.md "Costly identities"). The lab runs the victim
// alone (local-only: its links cut, the floor the goal sets),
// the attackers' silence (absent: the victim keeps its few honest
// neighbours), sign-flip and the adaptive attacks so, and reports the
// victim's own accuracy beside the honest mean.

// victimSuffix marks a victim-placement run's attack in byzKey.
const victimSuffix = "@victim"

// victimAttacks are the attacks run with victim placement.
func (s *byzStudy) victimAttacks() []string {
	if !s.p.victims || !slices.Contains(s.p.fractions, byzSummaryF) {
		return nil
	}
	out := []string{victimLocal, dflsim.AttackAbsent}
	if slices.Contains(s.p.attacks, dflsim.AttackSignFlip) {
		out = append(out, dflsim.AttackSignFlip)
	}
	return append(out, s.p.adaptive...)
}

// victimPlacement returns the victim (the last peer of the seed's random
// order: honest under random placement at every fraction) and the
// attackers: its neighbours first, then the random order's.
func victimPlacement(g *topology.Graph, order []int, count int) (victim int, byz []bool) {
	victim = order[len(order)-1]
	byz = make([]bool, len(order))
	n := 0
	for _, j := range g.Neighbors(victim) {
		if n < count {
			byz[j], n = true, n+1
		}
	}
	for _, j := range order {
		if n < count && j != victim && !byz[j] {
			byz[j], n = true, n+1
		}
	}
	return victim, byz
}

// runVictims runs victimAttacks with victim placement at byzSummaryF.
func (s *byzStudy) runVictims(ctx context.Context, o Options, pool *dflsim.Pool, graphs map[uint64]*topology.Graph, orders map[uint64][]int) error {
	attacks := s.victimAttacks()
	for _, seed := range s.p.seedList(o.Seed) {
		if len(attacks) == 0 {
			break
		}
		victim, byz := victimPlacement(graphs[seed], orders[seed], int(byzSummaryF*float64(s.p.peers)+0.5))
		hostile := 0
		for _, j := range graphs[seed].Neighbors(victim) {
			if byz[j] {
				hostile++
			}
		}
		s.victimDegree[seed] = [2]int{hostile, len(graphs[seed].Neighbors(victim))}
		for _, attack := range attacks {
			for _, rule := range s.p.rules {
				res, accs, err := s.runOne(ctx, o, pool, graphs[seed], seed, byz, victim, attack, rule)
				if err != nil {
					return fmt.Errorf("victim placement seed %d %s %s: %w", seed, attack, rule, err)
				}
				k := byzKey{byzSummaryF, seed, rule, attack + victimSuffix}
				s.acc[k], s.victimAcc[k], s.alarms[k], s.moves[k], s.victimMoves[k] = res.acc, res.victim, res.alarms, res.moves, res.victimMoves
				if o.Logf != nil {
					o.Logf("byzantine f=%g seed=%d placement=victim attack=%s rule=%s honest_acc=%.4f victim_acc=%.4f%s orders=%s",
						byzSummaryF, seed, attack, rule, res.acc, res.victim, healthLog(res), fmtAccs(accs))
				}
			}
		}
	}
	return nil
}

// reportVictims prints, per rule and attack, the victim's accuracy
// (mean over the seeds) and the honest mean, under victim placement.
func (s *byzStudy) reportVictims(o Options, out io.Writer) {
	attacks := s.victimAttacks()
	if len(attacks) == 0 {
		return
	}
	var deg []string
	for _, seed := range s.seedsOf(o) {
		d := s.victimDegree[seed]
		deg = append(deg, fmt.Sprintf("seed %d: %d of %d", seed, d[0], d[1]))
	}
	fmt.Fprintf(out, "  victim placement at f=%g (the victim's hostile neighbours: %s); victim's accuracy %% / honest mean %%, mean over the seeds; local-only = the victim exchanging with nobody (the goal's floor); absent = the attackers silent, the victim keeps its 1-2 honest neighbours:\n",
		byzSummaryF, strings.Join(deg, "; "))
	tw := newTable(out, strings.Join(append([]string{"rule"}, attacks...), "\t"))
	for _, rule := range s.p.rules {
		cells := []string{rule}
		for _, a := range attacks {
			var v, h float64
			for _, seed := range s.seedsOf(o) {
				k := byzKey{byzSummaryF, seed, rule, a + victimSuffix}
				v, h = v+s.victimAcc[k], h+s.acc[k]
			}
			n := float64(len(s.seedsOf(o)))
			cells = append(cells, fmt.Sprintf("%.2f / %.2f", 100*v/n, 100*h/n))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
}
