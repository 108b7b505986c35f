package scenario

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/modelcodec"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/sim/dflsim"
	"github.com/peerlearn/peerlearn/theory/topology"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Scenario byzantine is the attack lab of issue #13: on a FedLay overlay
// (L ring spaces, degree <= 2L) of peers learning MNIST in synchronous
// rounds, a fraction f of the peers, placed at random, attack (sign-flip,
// x100 scale, Gaussian noise, ALIE, IPM, label-flip, and lies about
// DataSize, c_d, period and Hessians: dflsim.Attacks), and every
// aggregation rule, plain and robust, is measured by the honest peers'
// mean test accuracy at the end. The gap of a rule under an attack is the
// no-attack accuracy of plain FedLay minus the honest peers' accuracy
// with that rule under the attack, in points: it charges a defence both
// for what the attack still takes and for what the defence itself costs
// without attack. The worst gap is over the attacks and the seeds.
//
// Issue #26 added attackers that know the rule (dflsim.AdaptiveAttacks:
// the AGR-tailored search with and without the honest neighbours'
// models, reference collapse), a trigger backdoor at backdoorF measured
// by its attack success rate beside the clean accuracy, and victim
// placement (byzantine_victim.go); they are reported in tables of their
// own and in the summary's worst_gap_adaptive and backdoor_asr. A rule
// named with the suffix "+health" runs the neighbourhood check of issue
// #26 item 3 on every honest peer (byzantine_health.go, engine/health).
func init() {
	Register(Scenario{
		Data:    true,
		Name:    "byzantine",
		Summary: "attack lab: 11 Byzantine attacks, 3 adaptive ones and a backdoor x plain and robust rules x 0-30% attackers on a FedLay overlay, honest peers' MNIST accuracy and backdoor success",
		Run: func(ctx context.Context, o Options) (string, error) {
			p := byzScale(o.Quick)
			if err := p.byzSelected(); err != nil {
				return "", err
			}
			return runStudy(ctx, o, newByzStudy(p))
		},
	})
}

// byzParams is one scale of the scenario.
type byzParams struct {
	peers       int
	spaces      int // FedLay's L
	partition   string
	trainSubset int
	hidden      int // the MLP's hidden width
	lr          float32
	momentum    float32
	batch       int
	epochs      int // local epochs per round
	rounds      int
	evalTest    int
	fractions   []float64 // 0 must come first: it is every gap's reference
	seeds       int       // seeds o.Seed .. o.Seed+seeds-1
	orders      int       // training orders averaged per cell (>= 1)
	attacks     []string
	adaptive    []string            // the attacks that adapt to the rule (dflsim.AdaptiveAttacks), at every fraction but 0
	backdoorF   float64             // the fraction the backdoor runs at (0: not run)
	victims     bool                // also run victim placement (byzantine_victim.go)
	holdout     float64             // with the neighbourhood check: the share of a checked peer's shard held out of training to score on (byzantine_health.go)
	healthBest  bool                // with the neighbourhood check: health.Config.AgainstBest
	patience    int                 // with the neighbourhood check: health.Config.Patience (0: the default's)
	quorum      float64             // with the neighbourhood check: health.Config.Quorum (0: the default's)
	echo        *float64            // with the neighbourhood check: health.Config.EchoBelow (nil: the default's)
	codec       string              // how models travel ("": float32 as they are)
	trigger     dflsim.TriggerPlace // where the backdoor's trigger sits ("": the corner)
	balance     bool                // the attackers balance their push's signs against every rule (dflsim.Adversary.Balance)
	cutback     bool                // the adaptive attackers send their models cut back to the rule's cut radius (dflsim.Adversary.CutBack)
	unaligned   bool                // the attackers do not tilt their push for the consensus check (dflsim.Adversary.Unaligned)
	stay        bool                // the neighbourhood check narrows trust only, never places again (moves=0)
	async       bool                // the peers exchange models asynchronously by MEP, without attack only (byzantine_async.go)
	exposure    bool                // each cell also reports the exposed honest peers' accuracy apart (byzantine_exposure.go)
	rules       []string
	scale       string
	onlySeeds   []int  // a subset's seed offsets (1-based); nil: all
	selected    string // the subset's spec (byzSelectEnv); "" for the whole lab
}

// byzRules are the compared rules: the papers' plain FedLay and DecHW
// (DecHW is the rule that reads Hessians, so the Hessian lie's relevant
// plain baseline) and the robust ones (winsorised-fedlay: the backdoor
// and reference-collapse guards of issue #26; anchored-fedlay: the step
// floor with the cut below tau, against the adaptive attacks).
var byzRules = []string{"fedlay", aggregate.SafeDefault, byzDefault, "median", "trimmed-mean", "dechw", "clipped-dechw", "winsorised-fedlay", "anchored-fedlay"}

// byzDefault is the default defence as the lab runs it: what a real peer
// on a task with aggregate.SafeDefault runs unless its volunteer turns
// it off (node.DefaultDefences): the rule with the drift test's
// suspension, the suspended share kept ("keepshare-", "+suspend"), and
// the neighbourhood check ("+health") as node.HealthOn configures it
// (against the best neighbour, patience 1) and never placing a peer
// again (moves=0), which byzScale's defaults are. The lab's "default"
// lines (the cost without attack, the adaptive gaps, the backdoor, the
// summary's worst_gap_adaptive and backdoor_asr) are this rule's.
const byzDefault = "keepshare-fedlay" + suspendSuffix + healthSuffix

func byzScale(quick bool) byzParams {
	p := byzParams{
		peers: 30, spaces: 4, partition: "dirichlet:1", trainSubset: 4500, hidden: 32,
		lr: 0.1, momentum: 0.9, batch: 16, epochs: 2, rounds: 20, evalTest: 2000,
		fractions: []float64{0, 0.2, 0.3, 0.1}, seeds: 3, orders: 3, attacks: dflsim.Attacks(), rules: byzRules,
		adaptive: dflsim.AdaptiveAttacks(), backdoorF: byzBackdoorF, victims: true,
		healthBest: true, patience: 1, stay: true, // node.HealthOn's check, -health-moves 0: byzDefault
	}
	if quick {
		p.peers, p.spaces, p.trainSubset, p.rounds, p.evalTest = 20, 3, 3000, 20, 1000
		p.fractions, p.seeds, p.orders = []float64{0, 0.2}, 1, 1
		p.victims = false // PEERLEARN_BYZ_SELECT victims=1 runs them; make test's time stays the lab's
		p.attacks = []string{dflsim.AttackSignFlip, dflsim.AttackScale, dflsim.AttackALIE, dflsim.AttackLieSize}
		p.rules = []string{"fedlay", byzDefault, "median"}
		p.scale = "quick: 20 peers (L = 3), 3,000 training images, 20 rounds, f in {0, 0.2}, seed 1 only, one training order, attacks sign-flip, scale, alie, lie-size, the adaptive ones and the backdoor at f = 0.1, no victim placement; rules fedlay, " + byzDefault + " (the default defence), median; 1,000 test images"
	}
	return p
}

// byzKey names one run.
type byzKey struct {
	f      float64
	seed   uint64
	rule   string
	attack string
}

// byzStudy is the scenario's run (see study).
type byzStudy struct {
	p            byzParams
	train, test  *data.Dataset
	triggered    *data.Dataset                // the backdoor's test set (dflsim.Triggered)
	asr          map[byzKey]float64           // the backdoor's success rate on the honest peers
	victimAcc    map[byzKey]float64           // the victim's accuracy under victim placement
	victimDegree map[uint64][2]int            // per seed: the victim's hostile neighbours, its degree
	alarms       map[byzKey]float64           // with the neighbourhood check: the share of honest peers it ever found captured
	moves        map[byzKey]int               // with the neighbourhood check: the honest peers' new placements in all (every order)
	scores       map[byzKey]dflsim.Separation // with the check under attack: its scores of the attackers' models against the honest ones'
	victimMoves  map[byzKey]int               // under victim placement: the victim's new placements (every order)
	arch         nn.Arch
	acc          map[byzKey]float64     // honest peers' mean test accuracy at the end
	orderAcc     map[byzKey][]float64   // the same, per training order (byzantine_cost.go)
	exposure     map[byzKey]byzExposure // per fraction and seed (rule and attack empty)
	wall         time.Duration
}

func newByzStudy(p byzParams) *byzStudy {
	return &byzStudy{p: p, acc: map[byzKey]float64{}, orderAcc: map[byzKey][]float64{}, asr: map[byzKey]float64{}, victimAcc: map[byzKey]float64{}, alarms: map[byzKey]float64{}, moves: map[byzKey]int{}, scores: map[byzKey]dflsim.Separation{}, victimMoves: map[byzKey]int{}, victimDegree: map[uint64][2]int{}, exposure: map[byzKey]byzExposure{}}
}

func (s *byzStudy) describe(o Options, out io.Writer) error {
	p := s.p
	var err error
	if s.train, s.test, err = loadDataset(o); err != nil {
		return err
	}
	if s.train, err = s.train.Subset(firstN(p.trainSubset)); err != nil {
		return err
	}
	if s.arch, err = byzArch(p.hidden); err != nil {
		return err
	}
	s.triggered = dflsim.Triggered(s.test, p.evalTest, p.trigger)
	fmt.Fprintf(out, "byzantine: %d peers on a FedLay overlay (L = %d), %s (%d training images, %s), %s (%d params), SGD lr %g momentum %g batch %d, %d local epochs, %d synchronous rounds, a common initial model\n",
		p.peers, p.spaces, o.dataset(), s.train.Len(), p.partition, s.arch, mustParams(s.arch), p.lr, p.momentum, p.batch, p.epochs, p.rounds)
	fmt.Fprintf(out, "  attackers: fractions %v placed at random (nested: the first of one random order per seed), seeds %d..%d\n",
		p.fractions, o.Seed, o.Seed+uint64(p.seeds)-1)
	fmt.Fprintf(out, "  attacks %v; adaptive attacks %v (they know the rule and its parameters); rules %v\n", p.attacks, p.adaptive, p.rules)
	if p.balance {
		fmt.Fprintf(out, "  balance=1: the adaptive attacks and the backdoor balance their push's signs against every rule, not only against one with the sign check\n")
	}
	if p.stay {
		fmt.Fprintf(out, "  moves=0: the neighbourhood check (+health) never places a peer again; it only narrows whom a captured peer aggregates with\n")
	}
	if p.async {
		fmt.Fprintf(out, "  async=1: the peers exchange models asynchronously by MEP on the same overlay (medium period %v, training %v, tiers 2/3x, 1x, 2x, latency %v-%v), %d medium periods; a +health rule runs the real peer's check (peer/learn)\n",
			asyncPeriod, asyncTrainTime, asyncLatency.Min, asyncLatency.Max, p.rounds)
	}
	if p.unaligned {
		fmt.Fprintf(out, "  align=0: the attackers do not tilt their push towards the neighbours' consensus against a rule with the consensus check\n")
	}
	if p.cutback {
		fmt.Fprintf(out, "  cutback=1: the adaptive attacks send each model already cut back to the receiver's cut radius, as their simulated rule computes it (used whole, never reported)\n")
	}
	if p.exposure {
		fmt.Fprintf(out, "  exposure=1: each cell's exposed_acc is the mean accuracy of the honest peers at least half of whose neighbours are attackers, rest_acc the other honest peers' (NaN where there are none)\n")
	}
	if p.backdoorF > 0 {
		fmt.Fprintf(out, "  backdoor at f = %g: a %dx%d white square %s relabelled %d, boosted within the rule; success rate on %d triggered test images of the other classes\n",
			p.backdoorF, dflsim.TriggerSize, dflsim.TriggerSize, p.trigger.Where(), dflsim.BackdoorTarget, s.triggered.Len())
	}
	fmt.Fprintf(out, "  each cell: the mean of %d training order(s), the same partition, overlay, attackers and initial model, the peers' sample order reseeded\n", p.orders)
	fmt.Fprintf(out, "  ALIE and IPM are omniscient: they read the receiver's honest neighbours' models (the simulator grants it)\n")
	if p.scale != "" {
		fmt.Fprintf(out, "  scale: %s\n", p.scale)
	}
	if p.selected != "" {
		fmt.Fprintf(out, "  SUBSET (%s=%q): seeds %v only; not the full lab\n", byzSelectEnv, p.selected, p.seedList(o.Seed))
	}
	return nil
}

func (s *byzStudy) run(ctx context.Context, o Options) error {
	t0 := time.Now()
	defer func() { s.wall = time.Since(t0) }()
	return onPool(func(pool *dflsim.Pool) error {
		graphs, orders := map[uint64]*topology.Graph{}, map[uint64][]int{}
		for _, seed := range s.p.seedList(o.Seed) {
			ids := make([]ident.Peer, s.p.peers)
			for i := range ids {
				ids[i] = dflsim.PeerID(seed, i)
			}
			g, err := topology.FedLay(ids, s.p.spaces)
			if err != nil {
				return err
			}
			graphs[seed], orders[seed] = g, rand.New(rand.NewPCG(seed, 0x62797a616e74)).Perm(s.p.peers)
		}
		// Fractions outermost, in the order given, so that a long run's
		// log (o.Logf, one line per run) holds whole fractions early.
		for _, f := range s.p.allFractions() {
			for _, seed := range s.p.seedList(o.Seed) {
				byz := make([]bool, s.p.peers)
				for _, i := range orders[seed][:int(f*float64(s.p.peers)+0.5)] {
					byz[i] = true
				}
				s.exposure[byzKey{f: f, seed: seed}] = exposureOf(graphs[seed], byz)
				for _, attack := range s.attacksAt(f) {
					for _, rule := range s.p.rulesAt(f) {
						res, orders, err := s.runOne(ctx, o, pool, graphs[seed], seed, byz, -1, attack, rule)
						if err != nil {
							return fmt.Errorf("f %g seed %d %s %s: %w", f, seed, attack, rule, err)
						}
						k := byzKey{f, seed, rule, attack}
						s.acc[k], s.alarms[k], s.moves[k], s.scores[k], s.orderAcc[k] = res.acc, res.alarms, res.moves, res.scores, orders
						asr := healthLog(res) + suspendLog(res)
						if s.p.exposure {
							asr += fmt.Sprintf(" exposed_acc=%.4f rest_acc=%.4f", res.exposedAcc, res.restAcc)
						}
						if s.measuresTrigger(attack) {
							s.asr[k] = res.asr
							asr += fmt.Sprintf(" asr=%.4f", res.asr)
						}
						if o.Logf != nil {
							o.Logf("byzantine f=%g seed=%d attack=%s rule=%s honest_acc=%.4f%s honest_links_cut=%d orders=%s", f, seed, attack, rule, res.acc, asr, res.honestCut, fmtAccs(orders))
						}
					}
				}
			}
		}
		return s.runVictims(ctx, o, pool, graphs, orders)
	})
}

// runOne runs one rule under one attack once per training order and
// returns the honest peers' mean test accuracy at the end, averaged over
// the orders, and each order's.
//
// Why several orders: a cell is one chaotic trajectory. The same seed's
// cell moved by up to 2 points between defence variants that did not
// touch it (RESULTS, issue #13), as large as the goals it is measured
// against. An order keeps everything the seed fixes (partition, overlay,
// attackers, common initial model, the attack's own randomness) and
// reseeds only the peers' training (sample order): the spread between
// orders is the cell's own noise, and their mean a steadier yardstick.
func (s *byzStudy) runOne(ctx context.Context, o Options, pool *dflsim.Pool, g *topology.Graph, seed uint64, byz []bool, victim int, attack, rule string) (byzResult, []float64, error) {
	accs := make([]float64, 0, s.p.orders)
	var mean byzResult
	for order := range s.p.orders {
		r, err := s.runOrder(ctx, o, pool, g, seed, byz, victim, attack, rule, order)
		if err != nil {
			return byzResult{}, nil, err
		}
		accs = append(accs, r.acc)
		mean.acc += r.acc / float64(s.p.orders)
		mean.asr += r.asr / float64(s.p.orders)
		mean.victim += r.victim / float64(s.p.orders)
		mean.alarms += r.alarms / float64(s.p.orders)
		mean.checked = r.checked
		mean.moves += r.moves
		mean.victimCaptures += r.victimCaptures
		mean.victimMoves += r.victimMoves
		mean.scores = mean.scores.Add(r.scores)
		mean.honestCut += r.honestCut
		mean.exposedAcc += r.exposedAcc / float64(s.p.orders)
		mean.restAcc += r.restAcc / float64(s.p.orders)
		mean.leftOut += r.leftOut / float64(s.p.orders)
		mean.suspends = r.suspends
	}
	return mean, accs, nil
}

// byzResult is one run's outcome on the honest peers: their mean test
// accuracy, under the backdoor its mean success rate (else 0), and with
// a victim (victim placement) the victim's accuracy (else 0).
//
// With the neighbourhood check (healthSuffix): alarms is the share of
// the honest peers it ever found Captured and moves their new placements
// in all; victimCaptures and victimMoves the victim's.
type byzResult struct {
	acc, asr, victim            float64
	checked                     bool // the neighbourhood check ran
	alarms                      float64
	moves                       int
	victimCaptures, victimMoves int
	// scores: how the check's scores of the attackers' models compared
	// with the honest neighbours' (pooled over the orders).
	scores dflsim.Separation
	// honestCut counts the overlay's honest-honest links that an
	// honest peer's reputation had dropped at the end (either end):
	// what the defence cost honest peers in links (summed over orders).
	honestCut int
	// exposedAcc and restAcc split acc (with byzParams.exposure): the
	// honest peers at least half of whose neighbours are Byzantine, and
	// the others (NaN where a group is empty).
	exposedAcc, restAcc float64
	// leftOut: the neighbour models the drift test's Suspend form left
	// out of an honest peer's round, per honest peer and round (their
	// learn.Metrics.Suspended over their rounds); 0 without it.
	leftOut float64
	// suspends: the honest peers ran the drift test's Suspend form.
	suspends bool
}

// orderSalt reseeds the peers' training for order r (0: the seed's own).
const orderSalt = 0x6f72646572

// orderEdit is a population edit for training order r: it reseeds each
// peer's own random source (its sample order; the initial model is the
// common one) and then applies edit. Order 0 is edit itself.
func orderEdit(edit func(int, *learn.Config), r int) func(int, *learn.Config) {
	if r == 0 {
		return edit
	}
	return func(i int, c *learn.Config) {
		c.Seed = rand.New(rand.NewPCG(c.Seed, orderSalt+uint64(r))).Uint64()
		if edit != nil {
			edit(i, c)
		}
	}
}

// runOrder runs one rule under one attack with training order r and
// returns the honest peers' mean test accuracy at the end.
func (s *byzStudy) runOrder(ctx context.Context, o Options, pool *dflsim.Pool, g *topology.Graph, seed uint64, byz []bool, victim int, attack, rule string, r int) (byzResult, error) {
	p := s.p
	base, check := splitHealth(rule)
	base, screenCfg, screen := splitScreen(base)
	base, drift := splitDrift(base)
	cfg := learn.DefaultConfig()
	cfg.Arch, cfg.Batch, cfg.LocalEpochs, cfg.Aggregator = s.arch, p.batch, p.epochs, base
	cfg.Reputation.Drift = drift
	cfg.Optimizer = learn.OptimizerConfig{Name: "sgd", LR: p.lr, Momentum: p.momentum}
	// A common start, as a task publishes one: the lab measures attacks,
	// not the consensus of independent initialisations (init-gain's
	// subject), which would blur every column alike.
	cfg.Init = learn.Init{Mode: learn.InitCommon, CommonSeed: seed}
	advAttack := attack
	if attack == victimLocal {
		var err error
		if g, err = isolated(g, victim); err != nil {
			return byzResult{}, err
		}
		advAttack = dflsim.AttackNone
		check = false // a reference without exchange: nothing to check, and no new placement may link it again
	}
	adv := &dflsim.Adversary{Attack: advAttack, Byzantine: byz, Seed: seed, TriggerAt: p.trigger, Balance: p.balance, CutBack: p.cutback, Unaligned: p.unaligned}
	if check {
		adv.EchoBelow = s.healthConfig().EchoBelow // the attackers know the check as they know the rule
	}
	pop := dflsim.Population{Train: s.train, Partition: p.partition, N: p.peers, Seed: seed, Config: cfg, Edit: orderEdit(adv.Edit, r)}
	fillScreens := func(*dflsim.Built) {}
	if screen {
		fillScreens = screenPopulation(&pop, screenCfg, byz)
	}
	if p.async { // without attack only (applySelect)
		return s.runAsyncOrder(ctx, o, pool, g, seed, pop, check, fmt.Sprintf("byzantine seed=%d %s order %d/%d", seed, rule, r+1, p.orders))
	}
	if check {
		pop.Holdout, pop.Hold = p.holdout, func(i int) bool { return !byz[i] }
	}
	b, err := pop.Build()
	if err != nil {
		return byzResult{}, err
	}
	fillScreens(b)
	ev := dflsim.Eval{Test: s.test, Samples: p.evalTest, Peers: 1, Model: dflsim.Trained}
	label := fmt.Sprintf("byzantine f=%g seed=%d %s %s", frac(byz), seed, attack, rule)
	if victim >= 0 {
		label += " victim placement"
	}
	if p.orders > 1 {
		label += fmt.Sprintf(" order %d/%d", r+1, p.orders)
	}
	codec, err := modelcodec.Parse(p.codec)
	if err != nil {
		return byzResult{}, err
	}
	if p.codec == "" {
		codec = modelcodec.Config{} // float32 as it is: no codec at all
	}
	var hc *dflsim.Health
	if check {
		hc = s.healthCheck(b, seed, byz)
	}
	if _, err := (dflsim.SyncRun{Peers: b.Peers, Graph: g, Rounds: p.rounds, EvalEvery: p.rounds, Pool: pool, Ctx: ctx,
		Eval: ev, Adversary: adv, Unlink: true, Progress: o.Progress, Label: label, Codec: codec, Health: hc}).Run(); err != nil {
		return byzResult{}, err
	}
	var honest []*learn.Peer
	for i, peer := range b.Peers {
		if !byz[i] {
			honest = append(honest, peer)
		}
	}
	ev.Peers = 0
	pt, err := dflsim.Measure(pool, honest, ev)
	if err != nil {
		return byzResult{}, err
	}
	res := byzResult{acc: pt.Acc.Mean, honestCut: honestLinksCut(g, b.Peers, byz), leftOut: leftOutPerRound(b.Peers, byz), suspends: drift.Suspend}
	if s.p.exposure {
		if res.exposedAcc, res.restAcc, err = exposedAccuracy(pool, g, b.Peers, byz, ev); err != nil {
			return byzResult{}, err
		}
	}
	if hc != nil {
		res.checked = true
		res.alarms, res.moves = alarms(hc, byz)
		res.scores = hc.Separation()
		if victim >= 0 {
			st, mv := hc.Statuses()
			res.victimCaptures, res.victimMoves = st[victim].Captures, mv[victim]
		}
	}
	if victim >= 0 {
		if pt, err = dflsim.Measure(pool, b.Peers[victim:victim+1], ev); err != nil {
			return byzResult{}, err
		}
		res.victim = pt.Acc.Mean
	}
	if s.measuresTrigger(attack) {
		trig := dflsim.Eval{Test: s.triggered, Model: dflsim.Trained}
		if pt, err = dflsim.Measure(pool, honest, trig); err != nil {
			return byzResult{}, err
		}
		res.asr = pt.Acc.Mean
	}
	return res, nil
}

// measuresTrigger reports whether a run under attack measures the
// backdoor's success rate on the triggered test images: under the
// backdoor, and without attack when the lab runs the backdoor, where it
// is what the trigger alone does to the rule's clean model at that seed
// (its base rate: a T-shirt-like square pulls some images to class 0
// with no backdoor at all).
func (s *byzStudy) measuresTrigger(attack string) bool {
	return attack == dflsim.AttackBackdoor || (attack == dflsim.AttackNone && s.p.backdoorF > 0)
}

// attacksAt lists the runs at fraction f: the no-attack run at 0, else
// the absent reference, the attacks and the adaptive ones at the lab's
// fractions, and the backdoor at its own.
func (s *byzStudy) attacksAt(f float64) []string {
	if f == 0 {
		return []string{dflsim.AttackNone}
	}
	var out []string
	if slices.Contains(s.p.fractions, f) {
		out = append([]string{dflsim.AttackAbsent}, s.p.attacks...)
		out = append(out, s.p.adaptive...)
	}
	if f == s.p.backdoorF {
		out = append(out, dflsim.AttackBackdoor)
	}
	return out
}

// byzBackdoorF is the backdoor's attacker fraction (the goal:
// success at most 20% at f = 0.1).
const byzBackdoorF = 0.1

// allFractions is the lab's fractions and the backdoor's, if not among
// them.
func (p *byzParams) allFractions() []float64 {
	if p.backdoorF > 0 && !slices.Contains(p.fractions, p.backdoorF) {
		return append(slices.Clone(p.fractions), p.backdoorF)
	}
	return p.fractions
}

// byzArch is the lab's model: a 784-hidden-10 MLP, narrow so that the
// hundreds of runs of the full lab fit in about twenty minutes on two
// cores (MNIST at ~92%: the attacks' effect is tens of points).
func byzArch(hidden int) (nn.Arch, error) {
	a := nn.Arch{Name: fmt.Sprintf("mlp-%d", hidden), Input: nn.MNISTInput, Classes: 10, Layers: []nn.LayerSpec{
		nn.Flatten(), nn.Dense(hidden), nn.ReLU(), nn.Dense(10),
	}}
	if _, err := a.NumParams(); err != nil {
		return nn.Arch{}, err
	}
	return a, nil
}

// fmtAccs lists accuracies for a log line: 0.8123,0.8011.
func fmtAccs(accs []float64) string {
	out := make([]string, len(accs))
	for i, a := range accs {
		out[i] = fmt.Sprintf("%.4f", a)
	}
	return strings.Join(out, ",")
}

// frac is the share of true entries.
func frac(b []bool) float64 {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return float64(n) / float64(len(b))
}
