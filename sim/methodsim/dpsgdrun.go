package methodsim

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/internal/progress"
	"github.com/peerlearn/peerlearn/protocol/gossip"
	"github.com/peerlearn/peerlearn/protocol/method"
)

// DPSGDRun is D-PSGD on a Schedule's mixing (e.g. StaticGraph on a
// 10-regular graph, or OnePeerExp) with real local training, run as real
// peers run it: one method.DPSGD core per peer (gossip.RoundNode with
// the peer's part of the schedule, gossip.NodeSchedule), driven by
// CoreRun in virtual time. Round 0 trains the common initial model; a
// peer whose round-t model is trained sends it to the schedule's
// recipients of round t+1, and once its in-neighbours' round-t models
// have arrived mixes them with the row's weights and trains round t+1
// from the mix: a peer waits for its in-neighbours only, never for a
// global barrier (and, without a timeout here, for as long as they
// take), so a fast peer runs rounds ahead of a slow one where the
// schedule lets it. Round t is complete, and measured (every EvalEvery
// rounds), once every peer holds its model of round t or a later one.
type DPSGDRun struct {
	Peers    *Peers
	Devices  []Device
	Links    *Links
	Schedule gossip.Schedule
	// Name names the curve.
	Name   string
	Rounds int
	// Duration, if positive, also ends the run at that virtual time.
	Duration time.Duration
	// Stop, if not nil, ends the run after a measurement it approves.
	Stop      func(Point) bool
	Eval      Eval
	EvalEvery int
	Pool      *Pool
	Ctx       context.Context
	Progress  io.Writer
	Label     string
}

// DPSGDResult is what a DPSGDRun did.
type DPSGDResult struct {
	Curve  Curve
	Ledger *Ledger
	// TrainFailures counts peer rounds whose training failed (the peer
	// kept its mix).
	TrainFailures int
	// Stats are the cores' counters (rounds skipped catching up,
	// timeouts, stale models), by peer.
	Stats []gossip.RoundStats
}

// dpsgdTick is the cores' tick: the real peers'.
const dpsgdTick = 100 * time.Millisecond

// dpsgdStall bounds a run without Duration: past it, the rounds have
// stalled (a peer whose training could not start waits forever).
const dpsgdStall = 24 * time.Hour

// Run runs round 0 and up to Rounds mixing rounds.
func (r DPSGDRun) Run() (*DPSGDResult, error) {
	if r.Peers == nil || r.Schedule == nil || r.Schedule.N() != r.Peers.N() || len(r.Devices) != r.Peers.N() ||
		r.Links == nil || r.Pool == nil || r.Rounds < 0 || r.EvalEvery < 1 {
		return nil, fmt.Errorf("%w: d-psgd run", ErrConfig)
	}
	if err := r.Eval.validate(); err != nil {
		return nil, err
	}
	n := r.Peers.N()
	peers := r.Peers.Peers
	initial, err := peers[0].Params()
	if err != nil {
		return nil, err
	}
	dur := r.Duration
	if dur <= 0 {
		dur = dpsgdStall // the rounds end the run
	}
	cores := make([]*method.DPSGD, n)
	run := CoreRun{Peers: r.Peers, Devices: r.Devices, Links: r.Links, Cores: make([]method.Core, n), Graph: make([][]int, n),
		Tick: dpsgdTick, Duration: dur, EvalSamples: 1, Pool: r.Pool, Ctx: r.Ctx}
	for i, p := range peers {
		ns := &gossip.NodeSchedule{Schedule: r.Schedule, Node: i, IDs: r.Peers.IDs}
		// No timeout: a round waits for its in-neighbours however slow
		// (the baselines' D-PSGD); MaxRounds unbounded: the run ends
		// once round Rounds is measured.
		cfg := gossip.RoundConfig{ID: p.Config().ID, Arch: p.ArchTag(), NumParams: p.NumParams(), Timeout: math.MaxInt32, Schedule: ns}
		if cores[i], err = method.NewDPSGD(cfg, slices.Clone(initial)); err != nil {
			return nil, fmt.Errorf("peer %d: %w", i, err)
		}
		run.Cores[i] = cores[i]
		// A schedule repeats within 2n rounds (OnePeerExp: ⌈log2 n⌉).
		nb, err := ns.Peers(2 * n)
		if err != nil {
			return nil, err
		}
		for _, id := range nb {
			run.Graph[i] = append(run.Graph[i], r.Peers.Index[id])
		}
	}
	res := &DPSGDResult{Curve: Curve{Name: r.Name}}
	arch := peers[0].Config().Arch
	next, finished := 0, false // the next round to measure; round Rounds measured
	bar := progress.New(r.Progress, r.Label, int64(r.Rounds+1))
	defer bar.Finish()
	run.Observe = func(now time.Duration, l *Ledger) (bool, error) {
		t := math.MaxInt
		for _, c := range cores {
			t = min(t, completed(c.Status()))
		}
		if t < next {
			return false, nil
		}
		t = min(t, r.Rounds)
		bar.Add(int64(t + 1 - next))
		next = min(t/r.EvalEvery*r.EvalEvery+r.EvalEvery, r.Rounds)
		models := make([][]float32, n)
		for i, c := range cores {
			models[i] = c.Model()
		}
		acc, loss, err := r.Eval.measure(r.Pool, arch, models)
		if err != nil {
			return false, err
		}
		tot := l.Total()
		pt := Point{Round: float64(t), Time: now, Bytes: tot.BytesSent, TrainTime: tot.TrainTime, TrainSamples: tot.TrainSamples, Acc: acc, Loss: loss}
		res.Curve.Points = append(res.Curve.Points, pt)
		finished = t >= r.Rounds
		return finished || (r.Stop != nil && r.Stop(pt)), nil
	}
	out, err := run.Run()
	if err != nil {
		return res, err
	}
	if r.Duration <= 0 && !finished && (r.Stop == nil || len(res.Curve.Points) == 0 || !r.Stop(res.Curve.Final())) {
		return res, fmt.Errorf("%w: d-psgd stalled before round %d in %v of virtual time", ErrRun, r.Rounds, out.Time)
	}
	res.Ledger, res.TrainFailures = out.Ledger, out.TrainFailures
	for _, c := range cores {
		res.Stats = append(res.Stats, c.Node().Stats())
	}
	return res, nil
}

// completed is the last round whose model a D-PSGD core holds: the round
// it waits in, or the one before the round it trains towards.
func completed(s method.Status) int {
	if s.Role == "training" {
		return s.Round - 1
	}
	return s.Round
}
