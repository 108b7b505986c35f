package scenario

import (
	"context"
	"fmt"
	"time"

	"github.com/peerlearn/peerlearn/engine/health"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/sim/dflsim"
	"github.com/peerlearn/peerlearn/sim/simnet"
	"github.com/peerlearn/peerlearn/theory/topology"
)

// The lab's asynchronous mode (the subset key async=1, without attack
// only): the same peers, shards, overlay and training exchange models as
// the real peer does, by FedLay's MEP (dflsim.AsyncRun) on the lab's
// static overlay, with capacity tiers (mep.AssignTiers: periods and
// training times of 2/3x, 1x and 2x) and link latencies, instead of in
// synchronous rounds. What for: a rule's cost and the neighbourhood
// check's false alarms where models arrive at different ages, as on real
// peers; the synchronous lab measured them only in lock-step rounds. A
// "+health" rule runs the real peer's check (peer/learn's HealthConfig,
// the code `peerlearn peer -health` runs), not the simulator's
// dflsim.Health; it only narrows whom a captured peer aggregates with,
// as moves=0 (a move needs the overlay the static graph stands in for).
const (
	asyncPeriod    = 5 * time.Minute // a medium-tier peer's MEP period
	asyncTrainTime = time.Minute     // its local training's virtual time
	asyncTick      = time.Second
)

// asyncLatency is each model transfer's latency, as in fedlay-mnist.
var asyncLatency = simnet.Uniform{Min: 100 * time.Millisecond, Max: 600 * time.Millisecond}

// runAsyncOrder runs one rule without attack, asynchronously, for as many
// medium periods as the synchronous lab has rounds, and returns the
// peers' mean test accuracy (their published models, as in runOrder) and,
// with the check, its false alarms. pop is the population runOrder built
// (cfg without MEP timing yet).
func (s *byzStudy) runAsyncOrder(ctx context.Context, o Options, pool *dflsim.Pool, g *topology.Graph, seed uint64, pop dflsim.Population, check bool, label string) (byzResult, error) {
	p := s.p
	pop.Config.MEP.Period = int(asyncPeriod / asyncTick)
	pop.Config.MEP.OfferTimeout, pop.Config.MEP.TransferTimeout, pop.Config.MEP.JoinWait = 10, 30, 30
	pop.Tiers = true
	if pop.Config.Reputation.Drift.Limit > 0 {
		pop.Config.Reputation.Drift.Async = true
	}
	if check {
		pop.Config.Health = learn.HealthConfig{On: true, Check: s.healthConfig(), Samples: healthSamples}
	}
	b, err := pop.Build()
	if err != nil {
		return byzResult{}, err
	}
	ev := dflsim.Eval{Test: s.test, Samples: p.evalTest, Model: dflsim.Trained}
	span := time.Duration(p.rounds) * asyncPeriod
	if _, err := (dflsim.AsyncRun{
		Peers: b.Peers, TrainScale: b.TrainScale, Graph: g, Tick: asyncTick, TrainTime: asyncTrainTime,
		Duration: span, Latency: asyncLatency, Eval: ev, EvalEvery: span, RoundUnit: asyncPeriod,
		Seed: seed, Pool: pool, Ctx: ctx, Progress: o.Progress, Label: label + " async", Logf: o.Logf,
	}).Run(); err != nil {
		return byzResult{}, err
	}
	pt, err := dflsim.Measure(pool, b.Peers, ev)
	if err != nil {
		return byzResult{}, err
	}
	byz := make([]bool, len(b.Peers))
	res := byzResult{acc: pt.Acc.Mean, honestCut: honestLinksCut(g, b.Peers, byz), leftOut: leftOutPerRound(b.Peers, byz), suspends: pop.Config.Reputation.Drift.Suspend}
	if check {
		st := make([]health.Status, len(b.Peers))
		for i, peer := range b.Peers {
			var ok bool
			if st[i], ok = peer.Health(); !ok {
				return byzResult{}, fmt.Errorf("%w: peer %d runs no neighbourhood check", dflsim.ErrRun, i)
			}
		}
		res.checked, res.alarms = true, capturedShare(st, byz)
	}
	return res, nil
}

// asyncAllowed refuses the subset keys async=1 cannot run: it runs the
// no-attack row alone (f=0: the attackers' models are built for
// synchronous rounds), its check never moves a peer (moves=1 named),
// models travel as they are (codec), the check scores the shard the peer
// trained on (holdout), no peer is exposed without attackers (exposure),
// and the loss screen is not run asynchronously. A drift rule (+drift,
// +suspend) keeps its test on here (aggregate.DriftConfig.Async), which
// a real peer would turn off: the lab measures what the test costs where
// models arrive at different ages.
func (p *byzParams) asyncAllowed(noneOnly, movesNamed bool) error {
	switch {
	case !noneOnly:
		return fmt.Errorf("%w: %s: async=1 runs without attack only: add f=0", errSelect, byzSelectEnv)
	case movesNamed:
		return fmt.Errorf("%w: %s: async=1 with moves=1: the asynchronous lab's check only narrows whom a peer aggregates with", errSelect, byzSelectEnv)
	case p.codec != "":
		return fmt.Errorf("%w: %s: async=1 with a codec: not run", errSelect, byzSelectEnv)
	case p.holdout > 0:
		return fmt.Errorf("%w: %s: async=1 with holdout: the real peer's check scores the shard it trains on", errSelect, byzSelectEnv)
	case p.exposure:
		return fmt.Errorf("%w: %s: async=1 with exposure=1: without attackers no peer is exposed", errSelect, byzSelectEnv)
	}
	for _, r := range p.rules {
		base, _ := splitHealth(r)
		if _, _, screen := splitScreen(base); screen {
			return fmt.Errorf("%w: %s: async=1 with rule %q: the loss screen is not run asynchronously", errSelect, byzSelectEnv, r)
		}
	}
	return nil
}
