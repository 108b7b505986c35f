package dflsim

import (
	"slices"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/attack"
	"github.com/peerlearn/peerlearn/peer/learn"
)

// The adaptive attacks (issue #26): attackers that know the receiver's
// rule and its parameters (the rule is open source, its defaults are in
// the task spec) and search, each round and for each receiver, the
// strongest model that rule still accepts at full weight.
const (
	// AttackAdaptive is the AGR-tailored attack of Shejwalkar and
	// Houmansadr (NDSS 2021), adapted to decentralised neighbours: the
	// attackers that neighbour a receiver all send the same model
	// mean_h + gamma * d (colluding), mean_h the mean of the receiver's
	// honest closed neighbourhood's models and d the negative of their
	// mean local update (the "inverse unit vector" direction) scaled to
	// the honest neighbours' median distance from the receiver; gamma is
	// the largest, found by bisection, for which the receiver's own rule
	// (rebuilt from its configuration) neither refuses nor leaves out the
	// model and reports no outlier severity above the reputation's
	// tolerance: used, never charged. Full knowledge: it reads the
	// receiver's honest neighbours' models and its last training's start
	// (Origin), which the simulator grants.
	AttackAdaptive = "adaptive"
	// AttackAdaptiveBlind is AttackAdaptive without knowledge of the
	// honest neighbours (Shejwalkar and Houmansadr's partial knowledge):
	// the attackers know the receiver's model (a neighbour receives it)
	// and their own honestly trained models, which stand in for the
	// honest neighbours in the rule they simulate (and for the
	// receiver's Origin: their mean training start); the direction is
	// the negative of their own mean update, from the receiver's model.
	AttackAdaptiveBlind = "adaptive-blind"
	// AttackCollapse is reference collapse: the attackers send near-copies
	// of the receiver's own model (its model plus a step of 1% of the
	// honest median distance in a fixed random direction, or just beyond
	// the rule's copy radius where that is farther), so that the
	// low quantile of the neighbours' distances that a clipping rule
	// takes as its reference shrinks and honest neighbours fall outside
	// its radius.
	AttackCollapse = "collapse"
	// AttackBackdoor trains on the attacker's own data with a trigger
	// (TriggerSize x TriggerSize white square in the bottom-right corner)
	// stamped on half of each batch, relabelled BackdoorTarget, and sends
	// each receiver its model boosted within the receiver's rule (model
	// replacement, Bagdasaryan et al. 2020): x_r + gamma (a - x_r), a the
	// backdoored model, x_r the receiver's, gamma the largest up to the
	// receiver's closed neighbourhood's size (model replacement's
	// factor) that the rule accepts at full weight (full
	// knowledge, as AttackAdaptive). The lab measures its success rate
	// (Triggered) beside the clean accuracy.
	AttackBackdoor = "backdoor"
)

// AdaptiveAttacks lists the attacks that adapt to the rule (the lab's
// worst_gap_adaptive), AttackBackdoor excluded (it is measured by its
// success rate).
func AdaptiveAttacks() []string {
	return []string{AttackAdaptive, AttackAdaptiveBlind, AttackCollapse}
}

// isAdaptive reports whether attack searches against the rule.
func isAdaptive(attack string) bool {
	return attack == AttackAdaptive || attack == AttackAdaptiveBlind || attack == AttackBackdoor
}

// ruleOf rebuilds the receiver's aggregation rule as learn.Peer builds it
// from its configuration (peer/learn newAggregator): what an attacker who
// read the code and the task spec knows. DecHW's state is fresh (an
// attacker does not see the receiver's Hessian history).
func ruleOf(cfg learn.Config) (aggregate.Aggregator, error) {
	o := aggregate.DefaultOptions()
	o.DecHW, o.Bounds, o.Clip, o.Trim = cfg.DecHW, cfg.Bounds, cfg.Clip, cfg.Trim
	rule, err := aggregate.NewWith(cfg.Aggregator, o)
	if err != nil || cfg.Screen.Loss == nil {
		return rule, err
	}
	// The peer's loss screen runs in front of its rule (learn.Screened),
	// with the receiver's own data: full knowledge, which the simulator
	// grants.
	return learn.Screened{Inner: rule, Config: cfg.Screen}, nil
}

// adapt replaces the Byzantine contributions in nb (neighbours idx of
// receiver; honest lists the receiver's honest closed neighbourhood) by
// the adaptive attack's models.
func (a *Adversary) adapt(peers []*learn.Peer, receiver int, idx []int, honest []int, nb []aggregate.Contribution) {
	var slots []int
	for k, j := range idx {
		if a.Byzantine[j] {
			slots = append(slots, k)
		}
	}
	if len(slots) == 0 {
		return
	}
	self, ok := peers[receiver].Contribution()
	if !ok {
		return
	}
	self.Origin = peers[receiver].Mixed()
	switch a.Attack {
	case AttackCollapse:
		a.collapse(peers[receiver].Config(), self, nb, slots)
		return
	case AttackBackdoor:
		a.backdoor(peers, peers[receiver].Config(), peers[receiver].DriftCharged, self, idx, nb, slots)
		return
	}
	var basis []int // the models the attack's centre and direction come from
	sim := slices.Clone(nb)
	if a.Attack == AttackAdaptive {
		basis = honest
	} else {
		basis = a.byzantineModels(peers)
		// The honest neighbours' models are unknown: the attackers' own
		// stand in for them, and their mean start for the receiver's.
		k := 0
		for s, j := range idx {
			if !a.Byzantine[j] && len(basis) > 0 {
				sim[s].Params = peers[basis[k%len(basis)]].Published()
				k++
			}
		}
		self.Origin = meanOf(peers, basis, func(p *learn.Peer) []float32 { return orPublished(p.Mixed(), p) })
	}
	if len(basis) == 0 {
		return
	}
	centre := meanOf(peers, basis, func(p *learn.Peer) []float32 { return p.Published() })
	if a.Attack == AttackAdaptiveBlind {
		centre = slices.Clone(self.Params)
	}
	dir := meanOf(peers, basis, func(p *learn.Peer) []float32 { return p.Published() })
	start := meanOf(peers, basis, func(p *learn.Peer) []float32 { return orPublished(p.Mixed(), p) })
	for i := range dir {
		dir[i] = start[i] - dir[i] // minus the mean update
	}
	if a.balances(peers[receiver].Config()) && !attack.BalanceSigns(dir) {
		return
	}
	if bar, ok := a.consensusBar(peers[receiver].Config()); ok {
		attack.AlignConsensus(dir, self.Params, sim, slots, bar) // none to align with: the push as it is
	}
	unit := attack.MedianDistance(self.Params, sim, slots)
	if !attack.ScaleTo(dir, unit) {
		return
	}
	cfg := peers[receiver].Config()
	m := a.search(cfg, peers[receiver].DriftCharged, self, sim, slots, attack.MaxGamma,
		func(int) []float32 { return centre }, func(int) []float32 { return dir })
	if a.CutBack && m != nil {
		if rule, err := ruleOf(cfg); err == nil {
			_ = attack.CutBack(rule, self, sim, m) // on error the models stay as searched
		}
	}
	for _, s := range slots {
		nb[s].Params = m[s]
	}
}

// search is attack.Search against the receiver's rule, rebuilt from
// its configuration (cfg), and its reputation's tolerance and drift test
// (charged: learn.Peer.DriftCharged of the receiver, whose sums the
// attackers could keep themselves from the models they sent; the
// simulator grants them; nil: no drift test); nil when the rule cannot be
// built.
func (a *Adversary) search(cfg learn.Config, charged func(aggregate.Report, int) []int, self aggregate.Contribution, nb []aggregate.Contribution, slots []int, gmax float64,
	centre, dir func(slot int) []float32) map[int][]float32 {
	rule, err := ruleOf(cfg)
	if err != nil {
		return nil
	}
	if charged != nil {
		rule = driftAware{rule, charged}
	}
	m, _ := attack.Search(rule, cfg.Reputation.Tolerance, self, nb, slots, gmax, centre, dir)
	return m
}

// balances reports whether the attackers balance their push's signs
// (attack.BalanceSigns) against the receiver's rule, rebuilt from cfg:
// where it runs the sign check, as an attacker that read the rule would,
// and against every rule with Balance.
func (a *Adversary) balances(cfg learn.Config) bool {
	if a.Balance {
		return true
	}
	rule, err := ruleOf(cfg)
	return err == nil && attack.SignChecked(rule)
}

// consensusBar is the receiver's consensus check's bar (rebuilt from cfg)
// and whether the attackers tilt for it: where the rule runs one and they
// are not Unaligned, they tilt their push towards the neighbourhood's
// consensus as little as it lets them (attack.AlignConsensus).
func (a *Adversary) consensusBar(cfg learn.Config) (float64, bool) {
	if a.Unaligned {
		return 0, false
	}
	rule, err := ruleOf(cfg)
	if err != nil {
		return 0, false
	}
	return attack.ConsensusBar(rule)
}

// driftAware is the receiver's rule as an attacker that knows its
// reputation's drift test sees it: a model the test would charge is
// reported as an outlier of severity 1, which the search then avoids.
type driftAware struct {
	aggregate.Aggregator
	charged func(aggregate.Report, int) []int
}

// Aggregate implements aggregate.Aggregator.
func (d driftAware) Aggregate(self aggregate.Contribution, others []aggregate.Contribution, out []float32) (aggregate.Report, error) {
	rep, err := d.Aggregator.Aggregate(self, others, out)
	if err != nil {
		return rep, err
	}
	for _, j := range d.charged(rep, len(others)) {
		rep.Outliers = append(rep.Outliers, aggregate.Outlier{Index: j, From: others[j].From, Severity: 1, Action: aggregate.OutlierFlagged})
	}
	return rep, nil
}

// collapse sends each slot the receiver's model plus 1% of the honest
// median distance in a fixed random direction (drawn once per run), or
// just beyond the receiver's copy radius (attack.BeyondCopies; its rule
// rebuilt from cfg) or its neighbourhood check's echo radius
// (attack.BeyondEcho, Adversary.EchoBelow) where that is farther:
// nearer, the rule leaves the near-copies out of its reference, or the
// check counts them as echoes.
func (a *Adversary) collapse(cfg learn.Config, self aggregate.Contribution, nb []aggregate.Contribution, slots []int) {
	if a.noiseDir == nil || len(a.noiseDir) != len(self.Params) {
		if a.rng == nil {
			a.rng = a.newRand()
		}
		a.noiseDir = make([]float32, len(self.Params))
		for i := range a.noiseDir {
			a.noiseDir[i] = float32(a.rng.NormFloat64())
		}
	}
	d := slices.Clone(a.noiseDir)
	step := 0.01 * attack.MedianDistance(self.Params, nb, slots)
	if rule, err := ruleOf(cfg); err == nil {
		step = max(step, attack.BeyondCopies(rule, self))
	}
	step = max(step, attack.BeyondEcho(a.EchoBelow, self))
	if !attack.ScaleTo(d, step) {
		clear(d)
	}
	for _, s := range slots {
		m := make([]float32, len(self.Params))
		for i, v := range self.Params {
			m[i] = v + d[i]
		}
		nb[s].Params = m
	}
}

// backdoor boosts each slot's backdoored model within the rule: x_r +
// gamma (a - x_r), gamma common to the colluding slots and at most the
// receiver's closed neighbourhood's size (model replacement's factor:
// averaged with the others the boosted model replaces the aggregate).
func (a *Adversary) backdoor(peers []*learn.Peer, cfg learn.Config, charged func(aggregate.Report, int) []int, self aggregate.Contribution, idx []int, nb []aggregate.Contribution, slots []int) {
	diffs := map[int][]float32{}
	balance := a.balances(cfg) // one rule rebuilt per receiver, not per slot
	bar, consensus := a.consensusBar(cfg)
	for _, s := range slots {
		own := peers[idx[s]].Published()
		d := make([]float32, len(self.Params))
		for i, v := range self.Params {
			d[i] = own[i] - v
		}
		if balance {
			attack.BalanceSigns(d)
		}
		if consensus {
			attack.AlignConsensus(d, self.Params, nb, slots, bar)
		}
		diffs[s] = d
	}
	m := a.search(cfg, charged, self, nb, slots, float64(len(nb)+1),
		func(int) []float32 { return self.Params }, func(s int) []float32 { return diffs[s] })
	for _, s := range slots {
		nb[s].Params = m[s]
	}
}

// byzantineModels lists the Byzantine peers with a published model.
func (a *Adversary) byzantineModels(peers []*learn.Peer) []int {
	var out []int
	for j, b := range a.Byzantine {
		if b && peers[j].Published() != nil {
			out = append(out, j)
		}
	}
	return out
}

// meanOf is the mean of get(peers[j]) over js.
func meanOf(peers []*learn.Peer, js []int, get func(*learn.Peer) []float32) []float32 {
	var sum []float64
	for _, j := range js {
		v := get(peers[j])
		if sum == nil {
			sum = make([]float64, len(v))
		}
		for i, x := range v {
			sum[i] += float64(x)
		}
	}
	out := make([]float32, len(sum))
	for i, s := range sum {
		out[i] = float32(s / float64(len(js)))
	}
	return out
}

// orPublished is v, or p's published model when v is nil.
func orPublished(v []float32, p *learn.Peer) []float32 {
	if v == nil {
		return p.Published()
	}
	return v
}
