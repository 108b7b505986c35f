package methodsim

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/peerlearn/peerlearn/internal/progress"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/protocol/plexus"
	"github.com/peerlearn/peerlearn/sim/dflsim"
)

// PlexusRun is Plexus with real local training as its real peers run it:
// one method.Plexus core per peer (package plexus's state machine, its
// membership view built from digests pushed to the overlay's
// neighbours), driven by coreNet over a simnet scheduler in virtual time:
// transfers are timed by Links, trainings by each peer's Device,
// aggregation is instant. Each peer advertises its device's bandwidth
// (the paper's bandwidth exchange, here inside the digests); its
// neighbours are its overlay neighbours for the peers' IDs
// (overlay.ExpectedTables, Spaces rings). Every peer starts from the
// common initial model of peer 0, once its view has settled. The
// accuracy measured is the global model's, after every EvalEvery-th
// aggregation (and of the initial model at time 0).
type PlexusRun struct {
	Peers   *Peers
	Devices []Device
	Links   *Links
	// SampleSize is s, SuccessFraction sf (the paper: 10 to 13, 0.8).
	SampleSize      int
	SuccessFraction float64
	// Rounds is the last round; Duration, if positive, also ends the run
	// at that virtual time.
	Rounds   int
	Duration time.Duration
	// Tick is the state machines' tick (plexus's defaults assume
	// 100 ms); AggTimeout and RoundTimeout, if positive, replace
	// plexus.DefaultConfig's T_agg and T_round.
	Tick                     time.Duration
	AggTimeout, RoundTimeout time.Duration
	// Spaces is the overlay's ring count L whose neighbours the views
	// spread over (0: PlexusSpaces).
	Spaces int
	// Stop, if not nil, ends the run after a measurement it approves.
	Stop      func(Point) bool
	Eval      Eval
	EvalEvery int
	Pool      *Pool
	Ctx       context.Context
	Progress  io.Writer
	Label     string
}

// PlexusSpaces is PlexusRun's default overlay ring count.
const PlexusSpaces = 3

// plexusSettle is how many ticks a view must stay unchanged before its
// core starts: links here lose nothing, so a view that stopped growing
// for one second of virtual time (digests every tick, latencies up to a
// few hundred milliseconds) has every member.
const plexusSettle = 10

// PlexusResult is what a PlexusRun did.
type PlexusResult struct {
	Curve  Curve
	Ledger *Ledger
	// Stats are the peers' protocol counters; Digests counts the
	// membership digests all of them sent (in the Ledger too).
	Stats   []plexus.Stats
	Digests method.Traffic
	// Rounds is the last round aggregated, Global its model.
	Rounds uint64
	Global []float32
	// StepErrors counts messages a core refused; TrainFailures
	// trainings that failed.
	StepErrors, TrainFailures int
}

// Run runs Plexus until the last round is aggregated, the duration
// passes, Stop approves or nothing is left to do.
func (r PlexusRun) Run() (*PlexusResult, error) {
	sim, err := newEventSim(r.Peers, r.Devices, r.Links, r.Pool)
	if err != nil {
		return nil, err
	}
	if r.SampleSize < 1 || r.Rounds < 1 || r.Tick <= 0 || r.EvalEvery < 1 || r.Spaces < 0 {
		return nil, fmt.Errorf("%w: plexus run: s %d, %d rounds, tick %v, eval every %d, %d spaces", ErrConfig, r.SampleSize, r.Rounds, r.Tick, r.EvalEvery, r.Spaces)
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
	ticks := func(d time.Duration) int { return int((d + r.Tick - 1) / r.Tick) }
	plx := make([]*method.Plexus, n)
	cores := make([]method.Core, n)
	for i, p := range r.Peers.Peers {
		cfg := plexus.DefaultConfig()
		cfg.ID, cfg.Bandwidth = p.Config().ID, uint64(math.Max(1, r.Devices[i].Bandwidth))
		cfg.Arch, cfg.NumParams, cfg.DataSize = p.ArchTag(), p.NumParams(), p.DataSize()
		cfg.SampleSize, cfg.SuccessFraction, cfg.Rounds = r.SampleSize, r.SuccessFraction, uint64(r.Rounds)
		if r.AggTimeout > 0 {
			cfg.AggTimeout = ticks(r.AggTimeout)
		}
		if r.RoundTimeout > 0 {
			cfg.RoundTimeout = ticks(r.RoundTimeout)
		}
		pc := method.PlexusConfig{Peer: cfg, DigestEvery: 1, Settle: plexusSettle, MaxMembers: max(2, n)}
		if plx[i], err = method.NewPlexus(pc, initial); err != nil {
			return nil, fmt.Errorf("peer %d: %w", i, err)
		}
		cores[i] = plx[i]
	}
	spaces := r.Spaces
	if spaces == 0 {
		spaces = PlexusSpaces
	}
	tables := overlay.ExpectedTables(r.Peers.IDs, spaces)
	for i, id := range r.Peers.IDs {
		if err := cores[i].SetPeers(tables[id].Neighbors()); err != nil {
			return nil, fmt.Errorf("peer %d: %w", i, err)
		}
	}
	res := &PlexusResult{Curve: Curve{Name: "plexus"}}
	arch := first.Config().Arch
	x, y := dflsim.Head(r.Eval.Test, r.Eval.Samples)
	measure := func(round uint64, model []float32) (bool, error) {
		ms, err := dflsim.EvaluateAll(r.Pool, arch, [][]float32{model}, [][]float32{x}, [][]int32{y})
		if err != nil {
			return false, err
		}
		pt := sim.point(float64(round))
		pt.Acc = summaryOf(ms[0].Accuracy)
		pt.Loss = summaryOf(ms[0].Loss)
		res.Curve.Points = append(res.Curve.Points, pt)
		return r.Stop != nil && r.Stop(pt), nil
	}
	bar := progress.New(r.Progress, r.Label, int64(r.Rounds))
	defer bar.Finish()

	var runErr error
	done := false
	net := &coreNet{sim: sim, cores: cores, evalSamples: 1}
	// After each peer's turn: a round its core just aggregated is the
	// newest global model; measure it.
	net.after = func(i int) {
		k, g := plx[i].Peer().Global()
		if k <= res.Rounds {
			return
		}
		res.Rounds, res.Global = k, g
		bar.Set(int64(k), 0)
		if k%uint64(r.EvalEvery) == 0 || k == uint64(r.Rounds) {
			stop, err := measure(k, g)
			if err != nil && runErr == nil {
				runErr = err
			}
			done = done || stop
		}
		done = done || k >= uint64(r.Rounds)
	}
	if _, err := measure(0, initial); err != nil {
		return nil, err
	}
	for i := range cores {
		net.drain(i) // the first digests
	}
	sim.every(r.Tick, func() bool {
		net.tick()
		return true
	})
	// run lets trainings still running finish their compute before the
	// peers are reused (their results are discarded).
	more := func() bool {
		return !done && runErr == nil && net.err == nil && !(r.Duration > 0 && sim.now() > r.Duration)
	}
	if err := sim.run(r.Ctx, more); err != nil {
		return res, err
	}
	res.Ledger, res.TrainFailures, res.StepErrors = sim.ledger, sim.failed, net.stepErrors
	for _, p := range plx {
		res.Stats = append(res.Stats, p.Peer().Stats())
		res.Digests.Msgs += p.Digests().Msgs
		res.Digests.Bytes += p.Digests().Bytes
	}
	if runErr == nil {
		runErr = net.err
	}
	return res, runErr
}

// summaryOf is the Summary of one value.
func summaryOf(v float64) learn.Summary { return learn.Summary{Mean: v, Min: v, Max: v, N: 1} }
