package learn

import (
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/f32"
)

// Checkpoint is what a peer needs to go on training where it stopped
// after a restart (a browser tab reloaded, or reopened after a crash):
// its published model, its optimiser's state and its counters. The
// caller keeps it where it likes (the browser peer: IndexedDB, the
// model and the optimiser's buffers in nn's model format).
type Checkpoint struct {
	Rounds  int   // rounds published
	Samples int64 // samples trained
	Params  []float32
	Opt     nn.OptState
}

// Checkpoint returns the peer's state after its last published round.
// It is refused while a Work is outstanding (its Run is changing the
// model and the optimiser: ask again between rounds), before the first
// round (nothing to keep) and on an external backend (Config.NewBackend:
// its optimiser lives outside this process).
func (p *Peer) Checkpoint() (Checkpoint, error) {
	switch {
	case p.work != nil:
		return Checkpoint{}, ErrBusy
	case p.published == nil:
		return Checkpoint{}, ErrNoModel
	case p.ext:
		return Checkpoint{}, fmt.Errorf("%w: checkpoint of a %s backend", ErrConfig, p.Backend())
	}
	st, err := nn.StateOf(p.opt)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return Checkpoint{Rounds: p.metrics.Rounds, Samples: p.metrics.SamplesTrained, Params: slices.Clone(p.published), Opt: st}, nil
}

// Resume restores c into a peer that has not started a round: its model
// and optimiser state, its round and sample counts; the model is
// published at once (the MEP offers it to neighbours and its next round
// aggregates from it; a method core built afterwards from Params starts
// from it), as if the peer had just finished round c.Rounds. A
// checkpoint of another model shape, optimiser or with non-finite values
// is refused and the peer left as it was.
func (p *Peer) Resume(c Checkpoint) error {
	switch {
	case p.work != nil || p.published != nil || p.metrics.Rounds > 0 || p.metrics.RoundsFailed > 0:
		return fmt.Errorf("%w: Resume after the first round", ErrBusy)
	case p.ext:
		return fmt.Errorf("%w: resume on a %s backend", ErrConfig, p.Backend())
	case len(c.Params) != p.model.NumParams():
		return fmt.Errorf("%w: checkpoint of %d parameters, the model has %d", ErrConfig, len(c.Params), p.model.NumParams())
	case c.Rounds < 0 || c.Samples < 0:
		return fmt.Errorf("%w: checkpoint of %d rounds, %d samples", ErrConfig, c.Rounds, c.Samples)
	}
	if i := f32.FirstNonFinite(c.Params); i >= 0 {
		return fmt.Errorf("%w: checkpoint parameter %d is %v", ErrConfig, i, c.Params[i])
	}
	// The optimiser last: SetState leaves it unchanged on error, and
	// nothing after it can fail but the MEP's Restore, whose conditions
	// (no round, no model yet) the first case implies.
	old, err := nn.StateOf(p.opt)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := nn.SetState(p.opt, c.Opt, len(c.Params)); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	params := slices.Clone(c.Params)
	if err := p.mep.Restore(params, uint64(c.Rounds)); err != nil {
		_ = nn.SetState(p.opt, old, len(c.Params))
		return err
	}
	if err := p.model.SetParams(params); err != nil {
		return err // the length was checked: not reached
	}
	p.published, p.mixed = params, nil // no neighbourhood model: robust rules run without our step (originOf)
	p.metrics.Rounds, p.metrics.SamplesTrained = c.Rounds, c.Samples
	return nil
}
