package methodsim

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/internal/progress"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/sim/dflsim"

	"github.com/peerlearn/peerlearn/protocol/plexus"
)

// PlexusRun is Plexus (package plexus: Algorithms 1 and 2, one state
// machine per peer) with real local training, over a simnet scheduler in
// virtual time: transfers are timed by Links, trainings by each peer's
// Device, aggregation is instant. Every peer knows every other peer and
// its bandwidth (the paper's a-priori bandwidth exchange) and starts from
// the common initial model of peer 0. The accuracy measured is the
// global model's, after every EvalEvery-th aggregation (and of the
// initial model at time 0).
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
	// Stop, if not nil, ends the run after a measurement it approves.
	Stop      func(Point) bool
	Eval      Eval
	EvalEvery int
	Pool      *Pool
	Ctx       context.Context
	Progress  io.Writer
	Label     string
}

// PlexusResult is what a PlexusRun did.
type PlexusResult struct {
	Curve  Curve
	Ledger *Ledger
	// Stats are the peers' protocol counters.
	Stats []plexus.Stats
	// Rounds is the last round aggregated, Global its model.
	Rounds uint64
	Global []float32
	// StepErrors counts messages a state machine refused; TrainFailures
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
	if r.SampleSize < 1 || r.Rounds < 1 || r.Tick <= 0 || r.EvalEvery < 1 {
		return nil, fmt.Errorf("%w: plexus run: s %d, %d rounds, tick %v, eval every %d", ErrConfig, r.SampleSize, r.Rounds, r.Tick, r.EvalEvery)
	}
	if err := r.Eval.validate(); err != nil {
		return nil, err
	}
	n := r.Peers.N()
	first := r.Peers.Peers[0]
	members := make([]plexus.Member, n)
	for i, id := range r.Peers.IDs {
		members[i] = plexus.Member{ID: id, Bandwidth: uint64(math.Max(1, r.Devices[i].Bandwidth))}
	}
	ticks := func(d time.Duration) int { return int((d + r.Tick - 1) / r.Tick) }
	plx := make([]*plexus.Peer, n)
	for i, p := range r.Peers.Peers {
		cfg := plexus.DefaultConfig()
		cfg.ID, cfg.Bandwidth = p.Config().ID, members[i].Bandwidth
		cfg.Arch, cfg.NumParams, cfg.DataSize = p.ArchTag(), p.NumParams(), p.DataSize()
		cfg.SampleSize, cfg.SuccessFraction, cfg.Rounds = r.SampleSize, r.SuccessFraction, uint64(r.Rounds)
		if r.AggTimeout > 0 {
			cfg.AggTimeout = ticks(r.AggTimeout)
		}
		if r.RoundTimeout > 0 {
			cfg.RoundTimeout = ticks(r.RoundTimeout)
		}
		if plx[i], err = plexus.New(cfg, members...); err != nil {
			return nil, fmt.Errorf("peer %d: %w", i, err)
		}
	}
	res := &PlexusResult{Curve: Curve{Name: "plexus"}}
	initial, err := first.Params()
	if err != nil {
		return nil, err
	}
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
	var drain func(i int)
	drain = func(i int) {
		p := plx[i]
		for p.HasReady() {
			rd := p.Ready()
			for _, m := range rd.Messages {
				to, ok := r.Peers.Index[m.To]
				if !ok {
					runErr = fmt.Errorf("%w: plexus message to an unknown peer", ErrRun)
					return
				}
				sim.send(i, to, plexus.WireBytes(m), m.Type != plexus.MsgAggregated, func() {
					if err := plx[to].Step(m); err != nil {
						res.StepErrors++
					}
					drain(to)
				})
			}
			for _, tt := range rd.Train {
				k := tt.Round
				sim.train(i, trainReq{
					params: tt.Params,
					still:  func() bool { return p.Wanted(k) },
					done: func(trained []float32, samples int) {
						if trained == nil {
							return
						}
						if err := p.ReportTrained(k, trained, uint64(samples)); err != nil && runErr == nil {
							runErr = fmt.Errorf("%w: peer %d round %d: %w", ErrRun, i, k, err)
						}
						drain(i)
					},
				})
			}
			for _, at := range rd.Aggregate {
				out := make([]float32, len(initial))
				if _, err := at.FedAvg(out); err != nil {
					runErr = fmt.Errorf("%w: aggregation of round %d: %w", ErrRun, at.Round, err)
					return
				}
				if err := p.ReportAggregated(at.Round, out); err != nil {
					runErr = fmt.Errorf("%w: round %d: %w", ErrRun, at.Round, err)
					return
				}
				if at.Round > res.Rounds {
					res.Rounds, res.Global = at.Round, out
					bar.Set(int64(at.Round), 0)
					if at.Round%uint64(r.EvalEvery) == 0 || at.Round == uint64(r.Rounds) {
						stop, err := measure(at.Round, out)
						if err != nil {
							runErr = err
						}
						done = done || stop
					}
				}
				if at.Round >= uint64(r.Rounds) {
					done = true
				}
			}
		}
	}
	if _, err := measure(0, initial); err != nil {
		return nil, err
	}
	for i, p := range plx {
		if err := p.Start(slices.Clone(initial)); err != nil {
			return nil, fmt.Errorf("peer %d: %w", i, err)
		}
	}
	for i := range plx {
		drain(i)
	}
	sim.every(r.Tick, func() bool {
		for i, p := range plx {
			p.Tick()
			drain(i)
		}
		return true
	})
	// run lets trainings still running finish their compute before the
	// peers are reused (their results are discarded).
	more := func() bool { return !done && runErr == nil && !(r.Duration > 0 && sim.now() > r.Duration) }
	if err := sim.run(r.Ctx, more); err != nil {
		return res, err
	}
	res.Ledger, res.TrainFailures = sim.ledger, sim.failed
	for _, p := range plx {
		res.Stats = append(res.Stats, p.Stats())
	}
	return res, runErr
}

// summaryOf is the Summary of one value.
func summaryOf(v float64) learn.Summary { return learn.Summary{Mean: v, Min: v, Max: v, N: 1} }
