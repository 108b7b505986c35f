package dflsim

import (
	"context"
	"fmt"
	"io"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/internal/progress"
	"github.com/peerlearn/peerlearn/peer/learn"
)

// FedAvgRun is the centralised baseline: each round every client starts
// from the global model, does the same local training as a peer, and the
// server replaces the global model by the data-size weighted mean of the
// clients' models (aggregate.FedAvg). The first client's initial model is
// the first global model. It is the upper bound the FedLay paper compares
// with.
type FedAvgRun struct {
	Clients   []*learn.Peer
	Rounds    int
	Eval      Eval
	EvalEvery int
	Pool      *Pool
	// Ctx, if not nil, is checked between rounds.
	Ctx      context.Context
	Progress io.Writer
	Label    string
}

// Run runs the rounds and returns the global model's measurements
// (Loss and Acc are over that one model; the byte counters are the
// clients' mean) and the final global model.
func (r FedAvgRun) Run() ([]Point, []float32, error) {
	if len(r.Clients) == 0 || r.Rounds < 1 || r.Pool == nil {
		return nil, nil, fmt.Errorf("%w: FedAvg with %d clients, %d rounds", ErrConfig, len(r.Clients), r.Rounds)
	}
	if err := r.Eval.validate(); err != nil {
		return nil, nil, err
	}
	global, err := r.Clients[0].Params()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrRun, err)
	}
	server := aggregate.FedAvg{}
	every := max(r.EvalEvery, 1)
	bar := progress.New(r.Progress, r.Label, int64(r.Rounds))
	defer bar.Finish()
	var points []Point
	for round := 1; round <= r.Rounds; round++ {
		if err := ctxErr(r.Ctx); err != nil {
			return points, global, err
		}
		works := make([]*learn.Work, len(r.Clients))
		futs := make([]*Future, len(r.Clients))
		for i, c := range r.Clients {
			if works[i], err = c.TrainFrom(global); err != nil {
				return points, global, fmt.Errorf("%w: client %d: %w", ErrRun, i, err)
			}
			futs[i] = r.Pool.Run(works[i])
		}
		var models []aggregate.Contribution
		for i, w := range works {
			futs[i].Wait()
			if err := w.Peer().Finish(w); err != nil {
				continue // counted in the client's metrics; its model is left out
			}
			if c, ok := w.Peer().Contribution(); ok {
				models = append(models, c)
			}
		}
		self := aggregate.Contribution{From: r.Clients[0].Config().ID, Arch: r.Clients[0].ArchTag(), Params: global}
		self.From[0] ^= 0xff // the server is not client 0
		next := make([]float32, len(global))
		if _, err := server.Aggregate(self, models, next); err != nil {
			return points, global, fmt.Errorf("%w: round %d: %w", ErrRun, round, err)
		}
		global = next
		bar.Add(1)
		if round%every != 0 && round != r.Rounds {
			continue
		}
		pt, err := measureOne(r.Pool, r.Clients, global, r.Eval, Point{Round: float64(round)})
		if err != nil {
			return points, global, err
		}
		points = append(points, pt)
	}
	return points, global, nil
}

// measureOne measures one model, with the clients' traffic counters.
func measureOne(pool *Pool, clients []*learn.Peer, params []float32, ev Eval, pt Point) (Point, error) {
	pr := &probe{pt: pt}
	counters(clients, &pr.pt)
	pr.add(pool, clients[0].Config().Arch, params, ev)
	pr.pt.Peers = 1
	return pr.wait()
}
