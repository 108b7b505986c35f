package methodsim

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/internal/progress"
	"github.com/peerlearn/peerlearn/protocol/gossip"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/types/ident"
)

// GossipRun is Gossip Learning (method.Gossip, the core real peers run:
// age-weighted merge, push to a random peer every Period) with real local
// training, driven by coreNet over a
// simnet scheduler in virtual time: transfers are timed by Links,
// trainings by each peer's Device. Every peer's peer-sampling view holds
// every other peer, and all start from the common initial model of peer
// 0. A peer trains once per model it merges (a model arriving while it
// trains waits; a newer one replaces it). The accuracy measured is the
// mean over the Eval peers of their current models, every EvalEvery of
// virtual time.
type GossipRun struct {
	Peers   *Peers
	Devices []Device
	Links   *Links
	// Period is Δ, the time between two pushes of a peer (the Plexus
	// paper's GL baseline: a 60 s round, long enough to train and send).
	Period time.Duration
	// Tick is the nodes' tick; Period is rounded to whole ticks.
	Tick     time.Duration
	Duration time.Duration
	// Seed seeds the nodes' peer choices.
	Seed uint64
	// Stop, if not nil, ends the run after a measurement it approves.
	Stop      func(Point) bool
	Eval      Eval
	EvalEvery time.Duration
	Pool      *Pool
	Ctx       context.Context
	Progress  io.Writer
	Label     string
}

// GossipResult is what a GossipRun did.
type GossipResult struct {
	Curve  Curve
	Ledger *Ledger
	Stats  []gossip.Stats
	// StepErrors counts messages a node refused; TrainFailures
	// trainings that failed.
	StepErrors, TrainFailures int
}

// Run runs Gossip Learning for Duration of virtual time (or until Stop).
func (r GossipRun) Run() (*GossipResult, error) {
	sim, err := newEventSim(r.Peers, r.Devices, r.Links, r.Pool)
	if err != nil {
		return nil, err
	}
	if r.Tick <= 0 || r.Period < r.Tick || r.Duration <= 0 || r.EvalEvery <= 0 {
		return nil, fmt.Errorf("%w: gossip run: tick %v, period %v, duration %v, eval every %v", ErrConfig, r.Tick, r.Period, r.Duration, r.EvalEvery)
	}
	if err := r.Eval.validate(); err != nil {
		return nil, err
	}
	n := r.Peers.N()
	first := r.Peers.Peers[0]
	initial, err := first.Params()
	if err != nil {
		return nil, err
	}
	cores := make([]*method.Gossip, n)
	net := &coreNet{sim: sim, cores: make([]method.Core, n)}
	for i, p := range r.Peers.Peers {
		cfg := gossip.Config{ID: p.Config().ID, Arch: p.ArchTag(), NumParams: p.NumParams(), Period: int(r.Period / r.Tick)}
		if cores[i], err = method.NewGossip(cfg, rand.New(rand.NewPCG(r.Seed, 0x676f73736970+uint64(i))), slices.Clone(initial), 0); err != nil {
			return nil, fmt.Errorf("peer %d: %w", i, err)
		}
		view := make([]ident.Peer, 0, n-1)
		for j, id := range r.Peers.IDs {
			if j != i {
				view = append(view, id)
			}
		}
		if err := cores[i].SetPeers(view); err != nil {
			return nil, err
		}
		net.cores[i] = cores[i]
	}
	res := &GossipResult{Curve: Curve{Name: "gossip"}}
	arch := first.Config().Arch
	measure := func() (bool, error) {
		models := make([][]float32, n)
		for i, c := range cores {
			models[i] = c.Model()
		}
		acc, loss, err := r.Eval.measure(r.Pool, arch, models)
		if err != nil {
			return false, err
		}
		pt := sim.point(float64(sim.now()) / float64(r.Period))
		pt.Acc, pt.Loss = acc, loss
		res.Curve.Points = append(res.Curve.Points, pt)
		return r.Stop != nil && r.Stop(pt), nil
	}
	var runErr error
	bar := progress.New(r.Progress, r.Label, int64(r.Duration/r.EvalEvery))
	defer bar.Finish()
	if _, err := measure(); err != nil {
		return nil, err
	}
	sim.every(r.Tick, func() bool {
		net.tick()
		return true
	})
	stop := false
	sim.every(r.EvalEvery, func() bool {
		s, err := measure()
		if err != nil {
			runErr = err
		}
		stop = stop || s
		bar.Add(1)
		return true
	})
	if err := sim.run(r.Ctx, func() bool { return !stop && runErr == nil && net.err == nil && sim.now() < r.Duration }); err != nil {
		return res, err
	}
	res.Ledger, res.TrainFailures, res.StepErrors = sim.ledger, sim.failed, net.stepErrors
	for _, c := range cores {
		res.Stats = append(res.Stats, c.Node().Stats())
	}
	if runErr == nil {
		runErr = net.err
	}
	return res, runErr
}
