package node

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Moving away from a captured neighbourhood (issue #26 item 3,
// docs/SECURITY.md "Neighbourhood health"): when the neighbourhood check
// asks for a new placement (learn.Peer.TakeReplace, in FedLay's round),
// the Node decides whether the peer moves, within bounds a volunteer can
// live with and a server can afford: at most Max tries in a run, at
// least Every between two, one at a time. It hands the shell a
// MoveRequest; the shell pays for the new place (a new key pair and a
// new admission: the server's per-address limits and the task's proof
// of work apply, as to any newcomer, since a key's place is fixed for
// its epoch), brings back MoveDone, and on success leaves the overlay
// (Leave) and builds the core of the new place with the learner and
// the counters carried over (Carry, Config.Carried, Method.Moved).

// MoveConfig bounds the moves: Max tries per run (0: the peer never
// moves; the check only narrows its aggregation), Every between two
// tries, failed ones included (a server that refused is not asked again
// at once).
type MoveConfig struct {
	Max   int
	Every time.Duration
}

// The defaults: a captured peer moves at once, again after ten minutes
// if its new neighbourhood is captured too, at most three times a run
// (three admissions of the 20 an hour, burst 10, a server's default
// allows one address, admission.DefaultIPPerHour: volunteers behind one
// NAT share them).
const (
	DefaultMoveMax   = 3
	DefaultMoveEvery = 10 * time.Minute
)

// DefaultMoveConfig returns the defaults.
func DefaultMoveConfig() MoveConfig { return MoveConfig{Max: DefaultMoveMax, Every: DefaultMoveEvery} }

// Validate reports a MoveConfig out of range.
func (c MoveConfig) Validate() error {
	if c.Max < 0 || c.Every < 0 || (c.Max > 0 && c.Every == 0) {
		return fmt.Errorf("%w: moves: max %d, every %v (a peer that moves waits between moves)", ErrConfig, c.Max, c.Every)
	}
	return nil
}

// ReplaceAsked is the neighbourhood check's request for a new placement,
// with why. A FedLay round raises it inside the Node (FedLay's
// OnReplace, through the Method); a test steps it to drive the move
// decision without a captured neighbourhood.
type ReplaceAsked struct{ Why string }

func (ReplaceAsked) event() {}

// MoveRequest asks the shell to move the peer: a new key, a new
// admission, the overlay joined at the new place; it answers with
// MoveDone. Why is for the log.
type MoveRequest struct{ Why string }

// MoveDone is the outcome of the MoveRequest: Err is why the new place
// could not be had (the peer stays where it is), nil that the shell has
// the new admission and now moves (Leave, then the new core from
// Carry), to ID.
type MoveDone struct {
	ID  ident.Peer
	Err error
}

func (MoveDone) event() {}

// MoveStatus counts the moves, for /status and /metrics: Asked the
// check's requests, Tries the moves started, Moves those completed,
// Failed those whose new admission the shell could not get; Refused the
// requests not acted on, by reason ("off": the volunteer did not allow
// moves; "limit": Max tries made; "cooldown": within Every of the last
// try; "in_progress": a move under way). Previous are the IDs the peer
// left, oldest first.
type MoveStatus struct {
	Asked    int            `json:"asked"`
	Tries    int            `json:"tries"`
	Moves    int            `json:"moves"`
	Failed   int            `json:"failed"`
	Refused  map[string]int `json:"refused,omitempty"`
	Previous []string       `json:"previous,omitempty"`
}

// mover is the Node's move decision and its counters.
type mover struct {
	cfg     MoveConfig
	st      MoveStatus
	last    time.Time // the last try (zero: none)
	pending bool
}

// Carry is what the core of a peer's new place takes over from the
// old one's (Config.Carried): the move counters and the time of the
// last try (the bounds hold across moves), the init gain already
// applied (the learner does not wait for a new estimate: its model is
// scaled), and the evaluations.
type Carry struct {
	Moves    MoveStatus
	LastMove time.Time
	InitGain *InitGainStatus
	Eval     EvalStatus
	EvalBusy bool // an evaluation is out: its result comes back to the new core
}

// askMove decides on the check's request for a new placement.
func (n *Node) askMove(why string) {
	m := &n.move
	m.st.Asked++
	reason := ""
	switch {
	case m.cfg.Max == 0:
		reason = "off"
	case m.pending:
		reason = "in_progress"
	case m.st.Tries >= m.cfg.Max:
		reason = "limit"
	case !m.last.IsZero() && n.now.Sub(m.last) < m.cfg.Every:
		reason = "cooldown"
	}
	if reason != "" {
		if m.st.Refused == nil {
			m.st.Refused = map[string]int{}
		}
		m.st.Refused[reason]++
		n.logf("move: %s; not moving (%s; %d of %d moves tried)", why, reason, m.st.Tries, m.cfg.Max)
		return
	}
	m.st.Tries++
	m.pending, m.last = true, n.now
	n.rd.Move = &MoveRequest{Why: why}
	n.logf("move: %s; moving to a new place (a new key and admission; try %d of %d)", why, m.st.Tries, m.cfg.Max)
}

// moveDone takes the shell's outcome of a MoveRequest.
func (n *Node) moveDone(e MoveDone) error {
	m := &n.move
	if !m.pending {
		return fmt.Errorf("%w: a move nobody asked for", ErrConfig)
	}
	m.pending = false
	if e.Err != nil {
		m.st.Failed++
		n.logf("move: no new place (%v); staying", e.Err)
		return nil
	}
	m.st.Moves++
	m.st.Previous = append(m.st.Previous, HexID(n.id))
	n.logf("move: admitted at a new place as %v; leaving this one", e.ID)
	return nil
}

// Moves returns the move counters.
func (n *Node) Moves() MoveStatus {
	st := n.move.st
	st.Refused = maps.Clone(st.Refused)
	st.Previous = slices.Clone(st.Previous)
	return st
}

// Moving reports whether a move is under way (asked, not yet done).
func (n *Node) Moving() bool { return n.move.pending }

// Carry returns what the core of the peer's new place takes over
// (Config.Carried), once MoveDone has said it moved.
func (n *Node) Carry() Carry {
	c := Carry{Moves: n.Moves(), LastMove: n.move.last, Eval: n.eval.st, EvalBusy: n.eval.busy}
	if n.sizer != nil && n.sizer.applied {
		c.InitGain = n.sizer.status()
	}
	return c
}

// carried takes over the old place's Carry in New.
func (n *Node) carried(c *Carry) {
	n.move.st, n.move.last = c.Moves, c.LastMove
	n.move.st.Refused, n.move.st.Previous = maps.Clone(c.Moves.Refused), slices.Clone(c.Moves.Previous)
	target := n.eval.st.Target
	n.eval.st = c.Eval
	n.eval.st.Target, n.eval.busy = target, c.EvalBusy
	if n.sizer != nil && c.InitGain != nil {
		s := n.sizer
		s.applied = true
		s.st.State, s.st.Used, s.st.Gain, s.st.Converged = c.InitGain.State, c.InitGain.Used, c.InitGain.Gain, c.InitGain.Converged
	}
}
