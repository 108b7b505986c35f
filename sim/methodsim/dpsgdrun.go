package methodsim

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/internal/progress"
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/protocol/gossip"
)

// DPSGDRun is D-PSGD (package gossip: a Schedule's mixing rows, e.g.
// StaticGraph on a 10-regular graph or OnePeerExp) with real local
// training, in synchronous rounds: round 0 trains the common initial
// model; in round t >= 1 every peer sends its round t-1 model to the
// schedule's recipients, replaces its model by the mix of its own and
// the ones it receives (gossip.Mix) and trains from it.
//
// Time: every peer has its own clock. Its round-t model is ready when
// its training ends; it then sends it (Links, senders in order of
// readiness), and it starts round t+1 once its own model is ready and
// every model it mixes has arrived: a peer waits for its in-neighbours
// only, not for a global barrier. A round is complete, and measured,
// when every peer holds its model of that round.
type DPSGDRun struct {
	Peers    *Peers
	Devices  []Device
	Links    *Links
	Schedule gossip.Schedule
	// Name names the curve.
	Name   string
	Rounds int
	// Duration, if positive, also ends the run once a round completes
	// after that virtual time.
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
	// kept its model).
	TrainFailures int
}

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
	res := &DPSGDResult{Curve: Curve{Name: r.Name}, Ledger: NewLedger(n)}
	arch := peers[0].Config().Arch
	msg := gossip.Message{Type: gossip.MsgModel, From: r.Peers.IDs[0], Arch: peers[0].ArchTag(), NumParams: uint32(peers[0].NumParams())}
	bytes := gossip.WireBytes(msg)
	ready := make([]time.Duration, n) // when each peer's current model is trained
	start := make([]time.Duration, n)
	works := make([]*learn.Work, n)
	mixed := make([][]float32, n)
	for i := range mixed {
		mixed[i] = make([]float32, peers[i].NumParams())
	}
	bar := progress.New(r.Progress, r.Label, int64(r.Rounds+1))
	defer bar.Finish()
	for t := 0; t <= r.Rounds; t++ {
		if err := ctxErr(r.Ctx); err != nil {
			return res, err
		}
		var err error
		if t == 0 {
			for i, p := range peers {
				if works[i], err = p.SyncWork(nil); err != nil {
					return res, fmt.Errorf("%w: peer %d: %w", ErrRun, i, err)
				}
			}
		} else {
			if err := r.communicate(t, bytes, ready, start, res.Ledger); err != nil {
				return res, err
			}
			models := make([][]float32, n)
			for i, p := range peers {
				models[i] = p.Published()
			}
			if err := gossip.Mix(r.Schedule, t, models, mixed); err != nil {
				return res, fmt.Errorf("%w: round %d: %w", ErrRun, t, err)
			}
			for i, p := range peers {
				if works[i], err = p.TrainFrom(mixed[i]); err != nil {
					return res, fmt.Errorf("%w: peer %d: %w", ErrRun, i, err)
				}
			}
		}
		futs := make([]*Future, n)
		for i, w := range works {
			futs[i] = r.Pool.Run(w)
		}
		var last time.Duration
		for i, w := range works {
			futs[i].Wait()
			if err := peers[i].Finish(w); err != nil {
				res.TrainFailures++
			}
			d := r.Devices[i].TrainTime(w.Samples())
			res.Ledger.Train(i, w.Samples(), d)
			ready[i] = start[i] + d
			last = max(last, ready[i])
		}
		bar.Add(1)
		if t%r.EvalEvery != 0 && t != r.Rounds {
			continue
		}
		models := make([][]float32, n)
		for i, p := range peers {
			models[i] = p.Published()
		}
		acc, loss, err := r.Eval.measure(r.Pool, arch, models)
		if err != nil {
			return res, err
		}
		tot := res.Ledger.Total()
		pt := Point{Round: float64(t), Time: last, Bytes: tot.BytesSent, TrainTime: tot.TrainTime, TrainSamples: tot.TrainSamples, Acc: acc, Loss: loss}
		res.Curve.Points = append(res.Curve.Points, pt)
		if (r.Stop != nil && r.Stop(pt)) || (r.Duration > 0 && last > r.Duration) {
			break
		}
	}
	return res, nil
}

// communicate sends every peer's round t-1 model to its round-t
// recipients and sets each peer's round-t start: its own model ready and
// every model it mixes arrived.
func (r DPSGDRun) communicate(t int, bytes int64, ready, start []time.Duration, l *Ledger) error {
	n := len(ready)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ready[a], ready[b]) })
	copy(start, ready)
	for _, j := range order {
		to, err := r.Schedule.Recipients(j, t)
		if err != nil {
			return fmt.Errorf("%w: round %d: %w", ErrRun, t, err)
		}
		for _, i := range to {
			if i == j {
				continue
			}
			l.Send(j, i, bytes, true)
			start[i] = max(start[i], r.Links.Transfer(j, i, bytes, ready[j]))
		}
	}
	return nil
}
