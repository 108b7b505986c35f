package learn

import (
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/f32"
	"github.com/peerlearn/peerlearn/protocol/method"
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
	// Method is the method core's Progress with Params (every method
	// but FedLay's MEP, whose round is Rounds): what the runtime
	// recorded last (SetMethodProgress); a core built after Resume goes
	// on from it (MethodProgress).
	Method method.Progress
}

// SetMethodProgress records the method core's Progress with the model
// the peer just published: the runtime calls it each time it reports a
// training to the core, so a Checkpoint holds the core's round of its
// model.
func (p *Peer) SetMethodProgress(pr method.Progress) { p.methodPr = pr }

// MethodProgress is the Progress recorded last, or resumed (Resume):
// where a method core built from the peer's model goes on from
// (method.Resumable.Resume).
func (p *Peer) MethodProgress() method.Progress { return p.methodPr }

// StatefulBackend is an external backend (Config.NewBackend) whose
// optimiser state the peer can checkpoint and restore: the browser's
// trainer worker. Its calls may block (a message to another thread).
type StatefulBackend interface {
	// OptState returns the optimiser's state (nn.StateOf's).
	OptState() (nn.OptState, error)
	// SetOptState restores it for a model of n parameters (nn.SetState's
	// checks); on error the optimiser is unchanged.
	SetOptState(s nn.OptState, n int) error
}

// optState and setOptState are the optimiser's state wherever it lives.
func (p *Peer) optState() (nn.OptState, error) {
	if !p.ext {
		return nn.StateOf(p.opt)
	}
	if sb, ok := p.tr.(StatefulBackend); ok {
		return sb.OptState()
	}
	return nn.OptState{}, fmt.Errorf("the optimiser of a %s backend lives outside this process", p.Backend())
}

func (p *Peer) setOptState(s nn.OptState, n int) error {
	if !p.ext {
		return nn.SetState(p.opt, s, n)
	}
	if sb, ok := p.tr.(StatefulBackend); ok {
		return sb.SetOptState(s, n)
	}
	return fmt.Errorf("the optimiser of a %s backend lives outside this process", p.Backend())
}

// Checkpoint returns the peer's state after its last published round.
// It is refused while a Work is outstanding (its Run is changing the
// model and the optimiser: ask again between rounds), before the first
// round (nothing to keep) and on an external backend (Config.NewBackend)
// that is not a StatefulBackend: its optimiser lives outside this
// process.
func (p *Peer) Checkpoint() (Checkpoint, error) {
	switch {
	case p.work != nil:
		return Checkpoint{}, ErrBusy
	case p.published == nil:
		return Checkpoint{}, ErrNoModel
	}
	// The counters and model first: a StatefulBackend's OptState may
	// block, and the round it holds the state of is this one (a Work
	// started meanwhile reaches the backend only after it answers).
	c := Checkpoint{Rounds: p.metrics.Rounds, Samples: p.metrics.SamplesTrained, Params: slices.Clone(p.published), Method: p.methodPr}
	st, err := p.optState()
	if err != nil {
		return Checkpoint{}, fmt.Errorf("%w: checkpoint: %w", ErrConfig, err)
	}
	c.Opt = st
	return c, nil
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
	case len(c.Params) != p.model.NumParams():
		return fmt.Errorf("%w: checkpoint of %d parameters, the model has %d", ErrConfig, len(c.Params), p.model.NumParams())
	case c.Rounds < 0 || c.Samples < 0 || c.Method.Round < 0:
		return fmt.Errorf("%w: checkpoint of %d rounds (method round %d), %d samples", ErrConfig, c.Rounds, c.Method.Round, c.Samples)
	}
	if i := f32.FirstNonFinite(c.Params); i >= 0 {
		return fmt.Errorf("%w: checkpoint parameter %d is %v", ErrConfig, i, c.Params[i])
	}
	// The optimiser last: SetState leaves it unchanged on error, and
	// nothing after it can fail but the MEP's Restore, whose conditions
	// (no round, no model yet) the first case implies.
	old, err := p.optState()
	if err != nil {
		return fmt.Errorf("%w: resume: %w", ErrConfig, err)
	}
	if err := p.setOptState(c.Opt, len(c.Params)); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	params := slices.Clone(c.Params)
	if err := p.mep.Restore(params, uint64(c.Rounds)); err != nil {
		_ = p.setOptState(old, len(c.Params))
		return err
	}
	if err := p.model.SetParams(params); err != nil {
		return err // the length was checked: not reached
	}
	p.published, p.mixed = params, nil // no neighbourhood model: robust rules run without our step (originOf)
	p.metrics.Rounds, p.metrics.SamplesTrained = c.Rounds, c.Samples
	p.methodPr = c.Method // the method core checks it (Resume)
	return nil
}
