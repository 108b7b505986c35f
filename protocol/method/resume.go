package method

import (
	"errors"
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/protocol/gossip"
)

// Resuming a core after its peer restarted (a browser tab reloaded or
// reopened after a crash). The runtime keeps, with the peer's last
// trained model, the core's Progress when that model was reported
// (Trained); after the restart it builds a fresh core from that model
// (the constructors' initial) and calls Resume before anything else, so
// the round count goes on and a task's max_rounds holds across the
// restart: a peer that had trained max_rounds is done at once.

// ErrResume: a Progress a core cannot continue from (negative, beyond
// what it could have reached, another core's), or Resume on a core that
// has already started.
var ErrResume = errors.New("method: cannot resume")

// maxResumeRound bounds a resumed round: far above any task's, far
// below an overflow.
const maxResumeRound = math.MaxInt32

// Progress is what a core keeps of its own across a restart.
type Progress struct {
	// Round is the rounds this peer's model has completed: Gossip's,
	// PENS's and D-PSGD's trainings (D-PSGD's round of the last trained
	// model plus one, its mixes' catching up included), Plexus's newest
	// round the peer took part in. It is compared with the task's
	// max_rounds as each core does: Round >= MaxRounds is done.
	Round int `json:"round"`
	// Age is Gossip's model age (the samples behind it, gossip.Merge's
	// weight); 0 for the other cores.
	Age uint64 `json:"age,omitempty"`
}

// Resumable is a Core that can go on from a Progress. Every core of this
// package is one; FedLay's (peer/node's) resumes through learn.Peer.Resume
// instead, the MEP's round being the learner's.
type Resumable interface {
	Core
	// Progress is the core's Progress now: kept with the model of the
	// last Trained, it is where a fresh core resumes.
	Progress() Progress
	// Resume continues, in a core just built (no Ready, Tick, Step or
	// Trained yet) from the kept model, from pr. A Progress the core
	// cannot have reached is refused (ErrResume) and the core left as
	// built.
	Resume(pr Progress) error
}

var (
	_ Resumable = (*Gossip)(nil)
	_ Resumable = (*DPSGD)(nil)
	_ Resumable = (*PENS)(nil)
	_ Resumable = (*Plexus)(nil)
)

// checkProgress refuses a Progress no core of maxRounds rounds (0: no
// bound) reaches; age says whether the core has model ages.
func checkProgress(pr Progress, maxRounds int, age bool) error {
	switch {
	case pr.Round < 0 || pr.Round > maxResumeRound:
		return fmt.Errorf("%w: round %d, want 0 to %d", ErrResume, pr.Round, maxResumeRound)
	case maxRounds > 0 && pr.Round > maxRounds:
		return fmt.Errorf("%w: round %d of a task of max_rounds %d: no peer trains past it", ErrResume, pr.Round, maxRounds)
	case !age && pr.Age != 0:
		return fmt.Errorf("%w: a model age (%d) for a core without ages", ErrResume, pr.Age)
	case pr.Age > gossip.MaxAge:
		return fmt.Errorf("%w: model age %d above %d", ErrResume, pr.Age, uint64(gossip.MaxAge))
	}
	return nil
}

var errStarted = fmt.Errorf("%w: the core has started", ErrResume)

// Progress implements Resumable: the trainings and the published
// model's age.
func (g *Gossip) Progress() Progress {
	_, age := g.node.Model()
	return Progress{Round: g.round, Age: age}
}

// Resume implements Resumable. The resumed model keeps its age: a
// neighbour's model is merged with it by age, as before the restart.
func (g *Gossip) Resume(pr Progress) error {
	if err := checkProgress(pr, g.max, true); err != nil {
		return err
	}
	if g.round != 0 || g.busy || g.late != 0 || g.node.Stats() != (gossip.Stats{}) {
		return errStarted
	}
	if err := g.node.RestoreAge(pr.Age); err != nil {
		return fmt.Errorf("%w: %w", ErrResume, err)
	}
	g.round = pr.Round
	return nil
}

// Progress implements Resumable: a node waiting at the end of round r
// has completed r + 1 rounds; one training towards round r (or done at
// it), r: the round a resumed node trains next.
func (d *DPSGD) Progress() Progress {
	r, training := d.node.Round()
	if !training && !d.node.Done() {
		r++
	}
	return Progress{Round: int(min(r, maxResumeRound))}
}

// Resume implements Resumable: the node trains round pr.Round from the
// kept model (gossip.RoundNode.Resume); at max_rounds it is done.
func (d *DPSGD) Resume(pr Progress) error {
	if err := checkProgress(pr, d.max, false); err != nil {
		return err
	}
	if r, training := d.node.Round(); r != 0 || !training || d.mix != nil {
		return errStarted
	}
	if err := d.node.Resume(uint64(pr.Round)); err != nil {
		return fmt.Errorf("%w: %w", ErrResume, err)
	}
	return nil
}

// Progress implements Resumable: the trainings.
func (p *PENS) Progress() Progress { return Progress{Round: p.round} }

// Resume implements Resumable: the kept model is the published one and
// the next round samples, selects and averages from it. The policy's
// step-1 history (PENS's neighbour counts) is not kept: its rounds
// count again from 1 (polRound), so a resumed PENS peer runs step 1
// again before it keeps neighbours, rather than choose from nothing.
func (p *PENS) Resume(pr Progress) error {
	if err := checkProgress(pr, p.cfg.MaxRounds, false); err != nil {
		return err
	}
	if p.round != 0 || p.phase != phTraining || p.train == nil || p.published != nil || p.now != 0 {
		return errStarted
	}
	if pr.Round == 0 {
		return nil
	}
	p.round, p.resumed = pr.Round, pr.Round-1
	p.published, p.train, p.from = p.initial, nil, nil
	p.phase = phIdle
	if p.cfg.MaxRounds > 0 && p.round >= p.cfg.MaxRounds {
		p.phase = phDone
	}
	return nil
}

// polRound is the round the selection policy sees: the core's, less the
// rounds before a resume (the policy starts over at 1 then).
func (p *PENS) polRound() int { return p.round - p.resumed }

// Progress implements Resumable: the newest round the peer took part in.
func (c *Plexus) Progress() Progress {
	return Progress{Round: int(min(max(c.p.Newest(), c.resumed), maxResumeRound))}
}

// Resume implements Resumable: rounds are running (the peer took part
// in round pr.Round), so the core does not start round 1 but waits to
// be sampled for a later round (it trains for no round up to
// pr.Round: it has passed them), its Status's round does not go below
// pr.Round, and a peer that took part in the last round (Config.Rounds)
// is done. The round
// is not claimed in the core's digests (their Newest says what was
// aggregated, and the peer does not know that its round was).
func (c *Plexus) Resume(pr Progress) error {
	if err := checkProgress(pr, int(min(c.cfg.Peer.Rounds, maxResumeRound)), false); err != nil {
		return err
	}
	if c.joined || c.busy || c.rounds != 0 || c.now != 0 || c.p.Started() || c.p.Newest() != 0 {
		return errStarted
	}
	c.resumed = uint64(pr.Round)
	return nil
}
