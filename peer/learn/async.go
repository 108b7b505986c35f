package learn

import (
	"fmt"

	"github.com/peerlearn/peerlearn/protocol/mep"
)

// RobustAdoptMin is the fewest neighbour models a late joiner under a
// robust rule adopts (their coordinate-wise median, see adoptAggregator);
// with fewer it starts from its own initial model, as in a fresh network.
// The median of three models with one liar lies between two honest ones;
// of one or two models a liar is the result, or half of it: a joiner
// whose first model to arrive is a liar's (a sign-flipped model a hundred
// times too large, say) would adopt it wholesale and need many rounds to
// train its way back, if it ever does.
const RobustAdoptMin = 3

// Ready is what an asynchronously driven peer wants done: send Messages
// (a MsgModel carries Params and Hessian as its payload), and run Work if
// not nil, then hand it to Finish.
type Ready struct {
	Messages []mep.Message
	Work     *Work
}

// SetNeighbors replaces the peer's neighbour set (from the overlay, or a
// static topology) with the neighbours' advertised periods.
func (p *Peer) SetNeighbors(ns []mep.Neighbor) error {
	if err := p.setMode(modeAsync); err != nil {
		return fmt.Errorf("%w: SetNeighbors on a synchronous peer", err)
	}
	return p.mep.SetNeighbors(ns)
}

// Neighbors returns the current neighbours (asynchronous mode).
func (p *Peer) Neighbors() []mep.Neighbor { return p.mep.Neighbors() }

// Tick advances the peer's MEP by one tick.
func (p *Peer) Tick() error {
	if err := p.setMode(modeAsync); err != nil {
		return fmt.Errorf("%w: Tick on a synchronous peer", err)
	}
	p.mep.Tick()
	return nil
}

// Now returns the MEP's tick count.
func (p *Peer) Now() int64 { return p.mep.Now() }

// Step hands the peer a message from a neighbour. An error says why it
// was dropped (a refused model wraps mep.ErrBadModel); it is counted.
func (p *Peer) Step(m mep.Message) error {
	if err := p.setMode(modeAsync); err != nil {
		return fmt.Errorf("%w: Step on a synchronous peer", err)
	}
	ctl, payload := WireSize(m)
	p.metrics.ControlBytesReceived += ctl
	p.metrics.ModelBytesReceived += payload
	if err := p.mep.Step(m); err != nil {
		p.metrics.Dropped++
		p.logf("dropped %v from %v: %v", m.Type, m.From, err)
		return err
	}
	return nil
}

// HasReady reports whether Ready has anything to hand out.
func (p *Peer) HasReady() bool { return p.mep.HasReady() }

// Ready hands out the messages to send and, when a round is due, the
// Work to run. The caller sends the messages and later calls Finish.
func (p *Peer) Ready() Ready {
	rd := p.mep.Ready()
	out := Ready{Messages: rd.Messages}
	for _, m := range rd.Messages {
		ctl, payload := WireSize(m)
		p.metrics.ControlBytesSent += ctl
		p.metrics.ModelBytesSent += payload
	}
	if r := rd.Round; r != nil {
		w := &Work{kind: workInit}
		switch r.Kind {
		case mep.RoundAggregate:
			w.kind, w.self, w.others = workAggregate, r.Self, r.Models
		case mep.RoundAdopt:
			if p.rule.Robust() && len(r.Models) < RobustAdoptMin {
				break // too few to outvote a liar: start from our own initial model
			}
			w.kind = workAdopt
			w.self, w.others, _ = r.Inputs()
		}
		out.Work = p.newWork(w)
	}
	return out
}

// WireSize returns the encoded size of m's control part (mep.Encode) and
// the size of its payload (parameters and Hessian, 4 bytes each).
func WireSize(m mep.Message) (control, payload int64) {
	var buf [mep.MaxMessageSize]byte
	b, err := mep.AppendEncode(buf[:0], m)
	if err == nil {
		control = int64(len(b))
	}
	return control, 4 * int64(len(m.Params)+len(m.Hessian))
}

// Done reports whether the peer has trained its Config.MEP.MaxRounds
// rounds (asynchronous mode): its published model is final.
func (p *Peer) Done() bool { return p.mode == modeAsync && p.mep.Done() }
