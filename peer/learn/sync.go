package learn

import (
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

// SyncWork starts one synchronous round: the first trains the initial
// model; each later one aggregates the peer's published model with the
// neighbours' models of the previous round (given as contributions, in a
// fixed order), then trains. The neighbours' vectors must not change
// until Finish. Bytes are counted as if every model were sent to every
// neighbour (undirected links: each neighbour receives ours).
func (p *Peer) SyncWork(neighbors []aggregate.Contribution) (*Work, error) {
	if err := p.setMode(modeSync); err != nil {
		return nil, fmt.Errorf("%w: SyncWork on an asynchronous peer", err)
	}
	if p.work != nil {
		return nil, ErrBusy
	}
	self, ok := p.Contribution()
	if !ok {
		return p.newWork(&Work{kind: workInit}), nil
	}
	own := 4 * int64(len(self.Params)+len(self.Hessian))
	for _, c := range neighbors {
		p.metrics.ModelBytesReceived += 4 * int64(len(c.Params)+len(c.Hessian))
		p.metrics.ModelBytesSent += own
	}
	p.metrics.ModelsReceived += uint64(len(neighbors))
	p.metrics.ModelsSent += uint64(len(neighbors))
	return p.newWork(&Work{kind: workAggregate, self: self, others: slices.Clone(neighbors)}), nil
}

// TrainFrom starts a round from the given parameters (a FedAvg client
// receiving the global model): set them, reset the optimiser if
// configured, train. params must not change until Finish.
func (p *Peer) TrainFrom(params []float32) (*Work, error) {
	if err := p.setMode(modeSync); err != nil {
		return nil, fmt.Errorf("%w: TrainFrom on an asynchronous peer", err)
	}
	if p.work != nil {
		return nil, ErrBusy
	}
	if len(params) != p.model.NumParams() {
		return nil, fmt.Errorf("%w: %d parameters, model has %d", ErrConfig, len(params), p.model.NumParams())
	}
	p.metrics.ModelBytesReceived += 4 * int64(len(params))
	p.metrics.ModelsReceived++
	return p.newWork(&Work{kind: workFrom, start: params}), nil
}

// PublishInitial publishes the initial model as it is, untrained, so that
// the first synchronous round aggregates the neighbours' initial models
// before any local training (the order of the initialisation-gain
// authors' code; DecHW's Algorithm 1 trains first instead). Only before
// the first round.
func (p *Peer) PublishInitial() error {
	if err := p.setMode(modeSync); err != nil {
		return fmt.Errorf("%w: PublishInitial on an asynchronous peer", err)
	}
	if p.work != nil {
		return ErrBusy
	}
	if p.published != nil {
		return fmt.Errorf("%w: a model is already published", ErrConfig)
	}
	p.published = slices.Clone(p.model.Params())
	p.mixed = p.published
	return nil
}
