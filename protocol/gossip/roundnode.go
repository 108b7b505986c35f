package gossip

import (
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/internal/f32"
	"github.com/peerlearn/peerlearn/types/ident"
)

// RoundConfig configures one D-PSGD node on a graph (RoundNode). Times
// are in ticks.
type RoundConfig struct {
	// ID is this node. Must be set.
	ID ident.Peer
	// Arch and NumParams describe the model; models of another
	// architecture or length are refused. Must be set.
	Arch      string
	NumParams int
	// Timeout bounds a round's wait for the neighbours' models, from the
	// moment the node's own model of the round is trained: a neighbour
	// that failed, or is slower, does not stall it (its weight stays
	// with the node). Must be >= 1.
	Timeout int
	// Schedule, if not nil, replaces the Metropolis-Hastings weights on
	// the neighbour set by a schedule's rows and recipients (the
	// simulator's baselines); the neighbour set must then hold every
	// peer the schedule names (NodeSchedule.Peers).
	Schedule *NodeSchedule
	// MaxRounds ends training after so many rounds (0: no bound): the
	// node then sends its final mix to its neighbours once and asks for
	// no more training.
	MaxRounds int
}

// Validate checks every field.
func (c RoundConfig) Validate() error {
	if err := validateModel(c.ID, c.Arch, c.NumParams); err != nil {
		return err
	}
	if c.Timeout < 1 || c.MaxRounds < 0 {
		return fmt.Errorf("%w: Timeout %d, MaxRounds %d", ErrConfig, c.Timeout, c.MaxRounds)
	}
	if s := c.Schedule; s != nil {
		if err := s.validate(); err != nil {
			return err
		}
		if s.IDs[s.Node] != c.ID {
			return fmt.Errorf("%w: schedule node %d is not %v", ErrConfig, s.Node, c.ID)
		}
	}
	return nil
}

// RoundStats counts what a RoundNode did; all counters only grow.
type RoundStats struct {
	Rounds   uint64 // rounds mixed
	Sent     uint64 // models sent
	Received uint64 // models accepted into the inbox
	Stale    uint64 // models of a round the node had passed, dropped
	Rejected uint64 // messages refused by Step
	Timeouts uint64 // rounds mixed without every neighbour's model
	Missing  uint64 // neighbours' models missing from those rounds
	Skipped  uint64 // rounds skipped catching up with a neighbour ahead
}

// roundModel is a neighbour's model for a round the node has not mixed.
type roundModel struct {
	round  uint64
	degree int
	params []float32
}

// RoundNode is D-PSGD (Lian et al. 2017) on an undirected graph given as
// each node's neighbour set (the overlay's, on real peers), in rounds:
// round 0 trains the initial model; at the end of round t a node sends
// its model x_t to every neighbour, waits for theirs (at most Timeout
// ticks), mixes with Metropolis-Hastings weights W_ij = 1/(1 +
// max(d_i, d_j)) (W_ii the rest, so a missing neighbour's weight stays
// with the node) and trains from the mix to get x_{t+1}. With every
// model arriving in time this is StaticGraph's round (the simulator's
// 10-regular baseline). A node that finds its neighbours ahead (a model
// of a later round) mixes that newer model and continues at the latest
// round it mixed, so a slow node catches up instead of timing out every
// round; the fastest node still advances one round a training, so no
// pair of nodes can push each other's rounds ahead of their trainings.
// A node without neighbours holds its round (training alone is not
// D-PSGD, and a peer that starts before the overlay has formed must not
// spend its rounds alone), and a neighbour that appears gets the node's
// model of the round at once. It holds at most one model per neighbour.
// Not safe for concurrent use.
type RoundNode struct {
	cfg   RoundConfig
	peers []ident.Peer
	now   int64

	round    uint64    // the round whose end the node is at (waiting) or training towards
	params   []float32 // x_round once trained; nil before round 0's training ends
	training bool
	done     bool  // MaxRounds rounds trained: the model is final
	waitFrom int64 // tick the wait for round's models began
	inbox    map[ident.Peer]roundModel

	msgs  []Message
	train []float32 // a mix to train, handed out by Ready
	stats RoundStats
}

// NewRoundNode validates cfg and returns a node about to train round 0
// from initial (kept: do not modify it afterwards).
func NewRoundNode(cfg RoundConfig, initial []float32) (*RoundNode, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := &RoundNode{cfg: cfg, inbox: map[ident.Peer]roundModel{}}
	if err := n.checkParams(initial); err != nil {
		return nil, err
	}
	n.training, n.train = true, initial
	return n, nil
}

// Stats returns the counters.
func (n *RoundNode) Stats() RoundStats { return n.stats }

// Round returns the round the node is in, and whether it is training.
func (n *RoundNode) Round() (uint64, bool) { return n.round, n.training }

// Model returns the last trained model (shared: do not modify), nil
// before round 0's training ends.
func (n *RoundNode) Model() []float32 { return n.params }

// Peers returns the neighbour set.
func (n *RoundNode) Peers() []ident.Peer { return n.peers }

// SetPeers replaces the neighbour set; a departed neighbour's waiting
// model is dropped, and a round waiting only for departed neighbours
// mixes at once. A new neighbour is sent the node's model of the round
// it waits in (it missed the round's sends); a node that had none starts
// its round's wait now.
func (n *RoundNode) SetPeers(ids []ident.Peer) error {
	seen := make(map[ident.Peer]bool, len(ids))
	for _, id := range ids {
		if id == n.cfg.ID || seen[id] || id == (ident.Peer{}) {
			return fmt.Errorf("%w: %v", ErrPeers, id)
		}
		seen[id] = true
	}
	if len(ids) > MaxDegree {
		return fmt.Errorf("%w: %d neighbours, at most %d", ErrPeers, len(ids), MaxDegree)
	}
	waiting := !n.training && !n.done && n.params != nil
	if waiting && len(n.peers) == 0 {
		n.waitFrom = n.now
	}
	if waiting && n.cfg.Schedule == nil { // a schedule says who gets the model
		for _, id := range ids {
			if !slices.Contains(n.peers, id) {
				n.send(id, len(ids))
			}
		}
	}
	n.peers = slices.Clone(ids)
	for id := range n.inbox {
		if !seen[id] {
			delete(n.inbox, id)
		}
	}
	n.maybeMix()
	return nil
}

// HasReady reports whether Ready has anything to hand out.
func (n *RoundNode) HasReady() bool { return len(n.msgs) > 0 || n.train != nil }

// Ready hands out the models to send and, if not nil, a mix to train
// (a slice the caller may train in place) and report with ReportTrained.
func (n *RoundNode) Ready() ([]Message, []float32) {
	msgs, tr := n.msgs, n.train
	n.msgs, n.train = nil, nil
	return msgs, tr
}

// Tick advances time by one tick: a round waiting longer than Timeout
// mixes with the models it has (a node without neighbours waits on).
func (n *RoundNode) Tick() {
	n.now++
	if !n.training && !n.done && len(n.peers) > 0 && n.now-n.waitFrom >= int64(n.cfg.Timeout) {
		n.mix(true)
	}
}

// Step hands the node a neighbour's model of a round.
func (n *RoundNode) Step(m Message) error {
	if (m.To != n.cfg.ID && m.To != ident.Peer{}) || m.From == n.cfg.ID {
		n.stats.Rejected++
		return fmt.Errorf("%w: %v -> %v", ErrNotForMe, m.From, m.To)
	}
	if err := checkFields(&m); err != nil {
		n.stats.Rejected++
		return err
	}
	if m.Type != MsgRound || m.Arch != n.cfg.Arch || int(m.NumParams) != n.cfg.NumParams {
		n.stats.Rejected++
		return fmt.Errorf("%w: %v of %q with %d parameters", ErrBadModel, m.Type, m.Arch, m.NumParams)
	}
	if err := n.checkParams(m.Params); err != nil {
		n.stats.Rejected++
		return err
	}
	if !slices.Contains(n.peers, m.From) {
		n.stats.Rejected++
		return fmt.Errorf("%w: %v is not a neighbour", ErrNotForMe, m.From)
	}
	if m.Age < n.round || n.done {
		n.stats.Stale++
		return nil
	}
	if old, ok := n.inbox[m.From]; ok && old.round > m.Age {
		n.stats.Stale++
		return nil
	}
	n.inbox[m.From] = roundModel{round: m.Age, degree: int(m.Degree), params: m.Params}
	n.stats.Received++
	n.maybeMix()
	return nil
}

// ReportTrained publishes the model trained from the last mix (or the
// initial model) as the node's model at the end of its round, sends it
// to every neighbour and starts waiting for theirs. params nil: training
// failed, the mix is kept as the round's model.
func (n *RoundNode) ReportTrained(params []float32) error {
	if !n.training {
		return ErrNoUpdate
	}
	if err := n.checkParams(params); err != nil {
		return err
	}
	n.params, n.training, n.waitFrom = params, false, n.now
	for _, to := range n.recipients() {
		n.send(to, len(n.peers))
	}
	n.maybeMix()
	return nil
}

// recipients are the peers that mix the node's model of its round: its
// neighbours, or the schedule's recipients of the next round.
func (n *RoundNode) recipients() []ident.Peer {
	if s := n.cfg.Schedule; s != nil {
		return s.recipients(n.round + 1)
	}
	return n.peers
}

// sources are the peers whose models of the node's round it mixes, with
// their weights: the neighbours with Metropolis-Hastings weights (w < 0:
// computed from the degree their model carries), or the schedule's row
// of the next round.
func (n *RoundNode) sources() []peerWeight {
	if s := n.cfg.Schedule; s != nil {
		return s.row(n.round + 1)
	}
	out := make([]peerWeight, len(n.peers))
	for i, id := range n.peers {
		out[i] = peerWeight{id, -1}
	}
	return out
}

// send queues the node's model of its round for neighbour to, with the
// node's degree (of a neighbour set of degree neighbours).
func (n *RoundNode) send(to ident.Peer, degree int) {
	n.msgs = append(n.msgs, Message{Type: MsgRound, From: n.cfg.ID, To: to, Age: n.round,
		Degree: uint16(max(1, degree)), Arch: n.cfg.Arch, NumParams: uint32(n.cfg.NumParams), Params: n.params})
	n.stats.Sent++
}

// maybeMix mixes once every neighbour's model of the round (or a later
// one) is in.
func (n *RoundNode) maybeMix() {
	if n.training || n.done || n.params == nil || len(n.peers) == 0 {
		return // a node without neighbours waits out the timeout: it does not race ahead alone
	}
	for _, src := range n.sources() {
		if m, ok := n.inbox[src.id]; !ok || m.round < n.round {
			return
		}
	}
	n.mix(false)
}

// mix computes x = W_ii x_i + sum_j W_ij x_j over the neighbours' models
// in, starts the next round and hands the mix out to train, unless
// MaxRounds rounds are trained (the mix is then the node's final model:
// it sends it once and stops exchanging).
func (n *RoundNode) mix(timedOut bool) {
	di := max(1, len(n.peers))
	acc := make([]float64, n.cfg.NumParams)
	self, latest, missing := 1.0, n.round, 0
	for _, src := range n.sources() {
		id := src.id
		m, ok := n.inbox[id]
		if !ok || m.round < n.round {
			missing++
			continue
		}
		w := src.w
		if w < 0 {
			w = 1 / float64(1+max(di, m.degree))
		}
		self -= w
		for k, v := range m.params {
			acc[k] += w * float64(v)
		}
		latest = max(latest, m.round)
		delete(n.inbox, id)
	}
	for k, v := range n.params {
		acc[k] += self * float64(v)
	}
	out := make([]float32, n.cfg.NumParams)
	for k, v := range acc {
		out[k] = float32(v)
	}
	n.stats.Rounds++
	if timedOut {
		n.stats.Timeouts++
		n.stats.Missing += uint64(missing)
	}
	// The next round, or the latest a neighbour is in if that is later
	// (catching up): never past it, or two nodes a round apart would
	// each jump past the other at every mix.
	n.stats.Skipped += max(n.round+1, latest) - (n.round + 1)
	n.round = max(n.round+1, latest)
	if n.cfg.MaxRounds > 0 && n.round >= uint64(n.cfg.MaxRounds) {
		// The final model: no more training or waiting. It goes to the
		// neighbours: one whose last round began from a mix holding this
		// node's last model (a node a step behind) waits for a newer one,
		// and would otherwise time out and end on its own model.
		n.params, n.done = out, true
		for _, to := range n.recipients() {
			n.send(to, len(n.peers))
		}
		return
	}
	n.training, n.train = true, out
}

// Done reports whether MaxRounds rounds are trained.
func (n *RoundNode) Done() bool { return n.done }

// checkParams requires NumParams finite values.
func (n *RoundNode) checkParams(v []float32) error {
	if len(v) != n.cfg.NumParams || f32.FirstNonFinite(v) >= 0 {
		return fmt.Errorf("%w: %d parameters (want %d finite)", ErrBadModel, len(v), n.cfg.NumParams)
	}
	return nil
}
