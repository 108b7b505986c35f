package dflsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
)

// The attacks an Adversary knows. Every Byzantine peer trains like an
// honest one (on its own shard, aggregating what it receives) and only
// what it offers its neighbours is replaced, except label-flip, where it
// trains on wrong labels and offers its true model and claims.
const (
	AttackNone     = "none"
	AttackSignFlip = "sign-flip" // the model negated
	AttackScale    = "scale"     // the model times ScaleFactor (100)
	AttackNoise    = "noise"     // the model plus N(0, NoiseStd^2) per parameter
	// AttackALIE is "a little is enough" (Baruch, Baruch and Goldberg,
	// 2019) on models: per parameter, the mean minus z times the standard
	// deviation of the receiver's honest closed neighbourhood, z from the
	// paper's z_max for the population's n and number of attackers.
	AttackALIE = "alie"
	// AttackIPM is inner-product manipulation (Xie, Koyejo and Gupta,
	// 2020) on models: the honest neighbourhood's mean starting point
	// (learn.Peer.Mixed) minus IPMEps times its mean local update
	// (published minus starting point), i.e. a step against the honest
	// direction.
	AttackIPM       = "ipm"
	AttackLabelFlip = "label-flip" // trains on label classes-1-y
	// The lies: a sign-flipped model with one claim set to what
	// maximises its weight in the plain rule that reads it.
	AttackLieSize    = "lie-size"    // DataSize 2^40 (DecAvg, FedLay's fallback, DecHW's)
	AttackLieConf    = "lie-cd"      // c_d = 1 (FedLay)
	AttackLiePeriod  = "lie-period"  // period 1, c_c = 1 (FedLay)
	AttackLieHessian = "lie-hessian" // every Hessian entry 1e30 (DecHW)
	// AttackLieAll tells every lie above at once with the attacker's
	// honestly trained model: it takes the weight without poisoning the
	// model, so it measures what the weight alone does (one shard's
	// non-IID model dominating its neighbours).
	AttackLieAll = "lie-all-honest-model"
	// AttackAbsent is no attack but a reference: the Byzantine peers send
	// nothing to honest peers (as if every honest peer had unlinked them
	// from the start, or they had never joined). It is what a perfect
	// defence would leave: the honest peers without the attackers' data
	// and links.
	AttackAbsent = "absent"
)

// Attacks lists the attacks, AttackNone excluded.
func Attacks() []string {
	return []string{AttackSignFlip, AttackScale, AttackNoise, AttackALIE, AttackIPM, AttackLabelFlip,
		AttackLieSize, AttackLieConf, AttackLiePeriod, AttackLieHessian, AttackLieAll}
}

// Adversary makes the peers Byzantine[i] attack with Attack in a
// synchronous run (SyncRun.Adversary). It is omniscient: ALIE and IPM
// read the honest neighbours' models of the peer they send to, which a
// real attacker would have to collect (by being their neighbour too, or
// colluding); the simulation grants it, the strongest case for the
// defence to meet. Byzantine peers receive each other's true models.
type Adversary struct {
	Attack    string
	Byzantine []bool
	// Seed draws the noise of AttackNoise.
	Seed uint64
	// ScaleFactor (AttackScale, 0: 100), NoiseStd (AttackNoise, 0: 1) and
	// IPMEps (AttackIPM, 0: 0.5) tune the attacks.
	ScaleFactor, NoiseStd, IPMEps float64
	// TriggerAt places AttackBackdoor's trigger (zero: TriggerCorner).
	TriggerAt TriggerPlace
	// Balance makes the adaptive attacks and the backdoor balance their
	// push's signs (attack.BalanceSigns) against every rule; without it
	// they do so only against a rule with the sign check, which refuses
	// a one-way push (the lab's balance=1: the balanced push is a
	// stronger attack on some rules without the check too).
	Balance bool
	// CutBack makes the adaptive attacks (AttackAdaptive,
	// AttackAdaptiveBlind) send each model already cut back to the
	// receiver's cut radius as their simulated rule computes it
	// (attack.CutBack): the model the rule would have used, used whole
	// (the lab's cutback=1; without it they send the far model and the
	// receiver cuts it).
	CutBack bool
	// Unaligned keeps the adaptive attacks and the backdoor from tilting
	// their push towards the consensus against a rule with the consensus
	// check (attack.AlignConsensus; the lab's align=0): attackers that do
	// not know the check. Where every push is refused the blind ones'
	// search ends at gamma 0, a copy of the receiver's model
	// (aggregate.ClipConfig.CopyBelow).
	Unaligned bool
	// EchoBelow is the receivers' neighbourhood check's echo bound
	// (health.Config.EchoBelow; 0: no check), which AttackCollapse's
	// attackers, knowing the defence, keep their near-copies beyond
	// (attack.BeyondEcho), as they keep them beyond the rule's copy
	// radius.
	EchoBelow float64

	rng      *rand.Rand
	noiseDir []float32 // AttackCollapse's direction, drawn once
}

// newRand is the attack's random source, from Seed.
func (a *Adversary) newRand() *rand.Rand { return rand.New(rand.NewPCG(a.Seed, 0x62797a)) }

// Validate checks the attack's name and that Byzantine covers n peers.
func (a *Adversary) Validate(n int) error {
	known := a.Attack == AttackNone || a.Attack == AttackAbsent
	for _, k := range Attacks() {
		known = known || k == a.Attack
	}
	known = known || slices.Contains(AdaptiveAttacks(), a.Attack) || a.Attack == AttackBackdoor
	if !a.TriggerAt.Known() {
		return fmt.Errorf("%w: trigger place %q (want %v)", ErrConfig, a.TriggerAt, TriggerPlaces())
	}
	if !known || len(a.Byzantine) != n {
		return fmt.Errorf("%w: attack %q on %d of %d peers", ErrConfig, a.Attack, len(a.Byzantine), n)
	}
	return nil
}

// Count is the number of Byzantine peers.
func (a *Adversary) Count() int {
	n := 0
	for _, b := range a.Byzantine {
		if b {
			n++
		}
	}
	return n
}

// Edit is a Population.Edit that gives label-flip attackers a training
// backend that flips every label, and backdoor attackers one that stamps
// the trigger (other attacks train honestly).
func (a *Adversary) Edit(i int, c *learn.Config) {
	if i >= len(a.Byzantine) || !a.Byzantine[i] {
		return
	}
	if a.Attack == AttackBackdoor {
		c.NewBackend = backdoorBackend(a.TriggerAt)
		return
	}
	if a.Attack != AttackLabelFlip {
		return
	}
	c.NewBackend = func(arch nn.Arch, opt nn.Optimizer) (nn.Backend, error) {
		m, err := nn.NewModel(arch)
		if err != nil {
			return nil, err
		}
		tr, err := nn.NewTrainer(m, opt)
		return labelFlipBackend{tr, int32(arch.Classes)}, err
	}
}

// labelFlipBackend trains on label classes-1-y.
type labelFlipBackend struct {
	*nn.Trainer
	classes int32
}

func (b labelFlipBackend) TrainBatch(x []float32, y []int32) (float32, error) {
	flipped := make([]int32, len(y))
	for i, v := range y {
		flipped[i] = b.classes - 1 - v
	}
	return b.Trainer.TrainBatch(x, flipped)
}

// rewrite replaces, in nb (the contributions of peers idx, neighbours of
// receiver), those of Byzantine peers by the attack's, and returns nb
// (without them for AttackAbsent). It must run on the simulation's
// goroutine, in a fixed order (the noise is drawn there).
func (a *Adversary) rewrite(peers []*learn.Peer, receiver int, idx []int, nb []aggregate.Contribution) []aggregate.Contribution {
	if a.Attack == AttackAbsent && !a.Byzantine[receiver] {
		kept := nb[:0]
		for k, j := range idx {
			if !a.Byzantine[j] {
				kept = append(kept, nb[k])
			}
		}
		return kept
	}
	if a.Attack == AttackNone || a.Attack == AttackAbsent || a.Attack == AttackLabelFlip || a.Byzantine[receiver] {
		return nb
	}
	if a.rng == nil {
		a.rng = a.newRand()
	}
	var honest []int // the receiver's honest closed neighbourhood
	if self, ok := peers[receiver].Contribution(); ok && self.Params != nil {
		honest = append(honest, receiver)
	}
	for _, j := range idx {
		if !a.Byzantine[j] {
			honest = append(honest, j)
		}
	}
	if isAdaptive(a.Attack) || a.Attack == AttackCollapse {
		a.adapt(peers, receiver, idx, honest, nb)
		return nb
	}
	for k, j := range idx {
		if a.Byzantine[j] {
			nb[k] = a.forge(peers, honest, nb[k])
		}
	}
	return nb
}

// forge is the attack's contribution in place of c, given the honest
// peers the receiver also hears from.
func (a *Adversary) forge(peers []*learn.Peer, honest []int, c aggregate.Contribution) aggregate.Contribution {
	own := c.Params
	c.Params = make([]float32, len(own))
	switch a.Attack {
	case AttackSignFlip, AttackLieSize, AttackLieConf, AttackLiePeriod, AttackLieHessian:
		for i, v := range own {
			c.Params[i] = -v
		}
	case AttackScale:
		s := float32(orDefault(a.ScaleFactor, 100))
		for i, v := range own {
			c.Params[i] = s * v
		}
	case AttackNoise:
		sd := orDefault(a.NoiseStd, 1)
		for i, v := range own {
			c.Params[i] = v + float32(sd*a.rng.NormFloat64())
		}
	case AttackALIE:
		a.alie(peers, honest, c.Params)
	case AttackIPM:
		a.ipm(peers, honest, c.Params)
	case AttackLieAll:
		copy(c.Params, own)
	}
	switch a.Attack {
	case AttackLieSize:
		c.DataSize = 1 << 40
	case AttackLieConf:
		c.DataConf = 1
	case AttackLiePeriod:
		c.Period = 1
	case AttackLieHessian:
		c.Hessian = make([]float32, len(own))
		for i := range c.Hessian {
			c.Hessian[i] = 1e30
		}
	case AttackLieAll:
		c.DataSize, c.DataConf, c.Period = 1<<40, 1, 1
		c.Hessian = make([]float32, len(own))
		for i := range c.Hessian {
			c.Hessian[i] = 1e30
		}
	}
	return c
}

// alie writes mean - z*std of the honest published models into out.
func (a *Adversary) alie(peers []*learn.Peer, honest []int, out []float32) {
	z := ALIEZ(len(a.Byzantine), a.Count())
	mean, sd := make([]float64, len(out)), make([]float64, len(out))
	for _, h := range honest {
		for i, v := range peers[h].Published() {
			mean[i] += float64(v)
			sd[i] += float64(v) * float64(v)
		}
	}
	n := float64(max(len(honest), 1))
	for i := range out {
		m := mean[i] / n
		v := max(sd[i]/n-m*m, 0)
		out[i] = float32(m - z*math.Sqrt(v))
	}
}

// ALIEZ is z_max of Baruch et al. (2019) for n workers of which m are
// Byzantine: s = floor(n/2 + 1) - m honest workers must be swayed, and z
// = Phi^-1((n - s)/n); it is at least 0.
func ALIEZ(n, m int) float64 {
	s := n/2 + 1 - m
	p := float64(n-s) / float64(n)
	if p <= 0.5 {
		return 0
	}
	return math.Sqrt2 * math.Erfinv(2*p-1)
}

// ipm writes mean(mixed) - eps*mean(published - mixed) of the honest
// peers into out.
func (a *Adversary) ipm(peers []*learn.Peer, honest []int, out []float32) {
	eps := orDefault(a.IPMEps, 0.5)
	start, upd := make([]float64, len(out)), make([]float64, len(out))
	for _, h := range honest {
		mixed, pub := peers[h].Mixed(), peers[h].Published()
		if mixed == nil {
			mixed = pub
		}
		for i, v := range pub {
			start[i] += float64(mixed[i])
			upd[i] += float64(v) - float64(mixed[i])
		}
	}
	n := float64(max(len(honest), 1))
	for i := range out {
		out[i] = float32(start[i]/n - eps*upd[i]/n)
	}
}

func orDefault(x, def float64) float64 {
	if x == 0 {
		return def
	}
	return x
}
