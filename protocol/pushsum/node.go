package pushsum

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Node is one peer's push-sum estimator. Only one goroutine may use it.
type Node struct {
	cfg    Config
	nbrs   []ident.Peer
	leader ident.Peer
	s, w   float64
	// rounds counts Ticks with neighbours; window the last estimates.
	rounds int
	window []float64
	done   bool
	result Result
	out    []Message
	used   map[ident.Peer]int // each neighbour's budget spent (leaky bucket)
	stats  Stats
}

// Result is what the estimation phase ended with.
type Result struct {
	// Estimate is the estimate of n when the phase ended (clamped to
	// [1, MaxN]); OK is false when no weight had reached the peer.
	Estimate float64
	OK       bool
	// Converged: the estimate met the Window/Tol test; false: MaxRounds
	// ended the phase.
	Converged bool
	// Rounds is the rounds it took.
	Rounds int
}

// Stats counts what a Node did.
type Stats struct {
	Sent, Received uint64
	// Stale counts shares of a larger leader's instance, dropped (their
	// senders have not heard of the smaller leader yet); Restarts counts
	// moves to a smaller leader's instance.
	Stale, Restarts uint64
	// Refused counts shares refused (misaddressed, over budget).
	Refused uint64
}

// New returns a node that leads its own instance until it hears of a
// smaller leader ID.
func New(cfg Config) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Node{cfg: cfg, leader: cfg.ID, s: 1, w: 1, used: map[ident.Peer]int{}}, nil
}

// SetNeighbors sets the peers the next rounds push to: the overlay's
// neighbours with an open link (a share sent where it cannot arrive is
// mass lost). The node's own ID is ignored.
func (n *Node) SetNeighbors(ids []ident.Peer) {
	n.nbrs = n.nbrs[:0]
	for _, id := range ids {
		if id != n.cfg.ID && !slices.Contains(n.nbrs, id) {
			n.nbrs = append(n.nbrs, id)
		}
	}
	slices.SortFunc(n.nbrs, func(a, b ident.Peer) int { return bytes.Compare(a[:], b[:]) })
}

// Tick runs one round: it keeps 1/(k+1) of (s, w) and queues an equal
// share for each of its k neighbours, then checks convergence. Without
// neighbours the round does not count.
func (n *Node) Tick() {
	for id, u := range n.used {
		if u <= n.cfg.Rate {
			delete(n.used, id)
		} else {
			n.used[id] = u - n.cfg.Rate
		}
	}
	k := len(n.nbrs)
	if k == 0 {
		return
	}
	n.rounds++
	share := 1 / float64(k+1)
	ss, ws := n.s*share, n.w*share
	for _, to := range n.nbrs {
		n.out = append(n.out, Message{Type: MsgShare, From: n.cfg.ID, To: to, Leader: n.leader, Round: uint32(min(n.rounds, 1<<31)), S: ss, W: ws})
	}
	n.s, n.w = ss, ws
	n.stats.Sent += uint64(k)
	n.observe()
}

// observe appends the estimate to the window and ends the phase when it
// has converged or the rounds are spent.
func (n *Node) observe() {
	if n.done {
		return
	}
	if est, ok := n.Estimate(); ok {
		n.window = append(n.window, est)
		if len(n.window) > n.cfg.Window {
			n.window = n.window[1:]
		}
	}
	if n.rounds >= n.cfg.MinRounds && len(n.window) == n.cfg.Window {
		lo, hi := slices.Min(n.window), slices.Max(n.window)
		if hi/lo-1 <= n.cfg.Tol {
			n.finish(true)
			return
		}
	}
	if n.rounds >= n.cfg.MaxRounds {
		n.finish(false)
	}
}

func (n *Node) finish(converged bool) {
	est, ok := n.Estimate()
	n.done, n.result = true, Result{Estimate: est, OK: ok, Converged: converged, Rounds: n.rounds}
}

// Step adds a share from a neighbour (m.From, authenticated by the
// transport; m.To must be this node). A share of a smaller leader's
// instance restarts the node in it; one of a larger leader's is dropped.
func (n *Node) Step(m Message) error {
	switch {
	case m.To != n.cfg.ID || m.From == n.cfg.ID:
		n.stats.Refused++
		return fmt.Errorf("%w: from %v to %v at %v", ErrAddressed, m.From, m.To, n.cfg.ID)
	case n.used[m.From] >= n.cfg.Burst:
		n.stats.Refused++
		return fmt.Errorf("%w: %v sent more than %d shares at %d per round", ErrBudget, m.From, n.cfg.Burst, n.cfg.Rate)
	}
	if err := checkFields(m); err != nil {
		n.stats.Refused++
		return err
	}
	n.used[m.From]++
	switch c := bytes.Compare(m.Leader[:], n.leader[:]); {
	case c > 0:
		n.stats.Stale++
		return nil
	case c < 0:
		n.leader, n.s, n.w = m.Leader, 1, 0
		n.window = n.window[:0]
		n.stats.Restarts++
	}
	n.s += m.S
	n.w += m.W
	n.stats.Received++
	return nil
}

// Returned gives back a share the transport could not send, so that its
// mass is not lost (a share of an instance the node has left since is
// dropped).
func (n *Node) Returned(m Message) {
	if m.From == n.cfg.ID && m.Leader == n.leader {
		n.s += m.S
		n.w += m.W
	}
}

// HasReady reports whether shares wait to be sent.
func (n *Node) HasReady() bool { return len(n.out) > 0 }

// Ready returns the shares to send and forgets them.
func (n *Node) Ready() []Message {
	out := n.out
	n.out = nil
	return out
}

// Estimate returns the current estimate s/w of n, clamped to [1, MaxN];
// ok is false while no weight has reached the node.
func (n *Node) Estimate() (est float64, ok bool) {
	if !(n.w > 0) {
		return 0, false
	}
	return min(max(n.s/n.w, 1), MaxN), true
}

// Done reports whether the estimation phase has ended; Result tells how.
func (n *Node) Done() bool { return n.done }

// Result returns the estimation phase's outcome (zero before Done).
func (n *Node) Result() Result { return n.result }

// Leader returns the leader ID of the node's current instance.
func (n *Node) Leader() ident.Peer { return n.leader }

// Rounds returns the rounds run with neighbours.
func (n *Node) Rounds() int { return n.rounds }

// Mass returns the node's (s, w), for conservation checks.
func (n *Node) Mass() (s, w float64) { return n.s, n.w }

// Stats returns the counters.
func (n *Node) Stats() Stats { return n.stats }
