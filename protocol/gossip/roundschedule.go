package gossip

import (
	"fmt"
	"slices"

	"github.com/peerlearn/peerlearn/types/ident"
)

// NodeSchedule is one node's part of a Schedule (the simulator's
// baselines: StaticGraph on a 10-regular graph, OnePeerExp), with the
// schedule's nodes named by peer ID. A RoundNode given one mixes round
// t with the schedule's row W_i.(t) and sends its model to Recipients
// instead of the Metropolis-Hastings weights on its neighbour set; its
// waiting, timeouts and catching up are the same.
type NodeSchedule struct {
	Schedule Schedule
	// Node is this node's index; IDs[k] is node k's peer.
	Node int
	IDs  []ident.Peer
}

// validate checks that Node is one of the schedule's nodes, named by
// distinct IDs.
func (s *NodeSchedule) validate() error {
	switch {
	case s.Schedule == nil || len(s.IDs) != s.Schedule.N():
		return fmt.Errorf("%w: a schedule of %d IDs", ErrConfig, len(s.IDs))
	case s.Node < 0 || s.Node >= len(s.IDs):
		return fmt.Errorf("%w: schedule node %d of %d", ErrConfig, s.Node, len(s.IDs))
	}
	seen := make(map[ident.Peer]bool, len(s.IDs))
	for _, p := range s.IDs {
		if seen[p] || p == (ident.Peer{}) {
			return fmt.Errorf("%w: schedule peer %v twice or unset", ErrConfig, p)
		}
		seen[p] = true
	}
	return nil
}

// peerWeight is an in-neighbour's weight in a round's mix.
type peerWeight struct {
	id ident.Peer
	w  float64
}

// row is the mix of round t (its in-neighbours, not the node itself).
func (s *NodeSchedule) row(t uint64) []peerWeight {
	r, err := s.Schedule.Row(s.Node, int(t))
	if err != nil {
		panic(fmt.Sprintf("gossip: a validated schedule: %v", err)) // Node is in range, t >= 0
	}
	out := make([]peerWeight, 0, len(r))
	for _, w := range r {
		if w.Node != s.Node {
			out = append(out, peerWeight{s.IDs[w.Node], w.W})
		}
	}
	return out
}

// recipients are the peers that mix this node's model in round t.
func (s *NodeSchedule) recipients(t uint64) []ident.Peer {
	r, err := s.Schedule.Recipients(s.Node, int(t))
	if err != nil {
		panic(fmt.Sprintf("gossip: a validated schedule: %v", err))
	}
	out := make([]ident.Peer, 0, len(r))
	for _, j := range r {
		if j != s.Node {
			out = append(out, s.IDs[j])
		}
	}
	return out
}

// Peers returns every peer the node exchanges with in rounds 1..rounds
// (in-neighbours and recipients): the neighbour set to give its
// RoundNode, which accepts models from those only.
func (s *NodeSchedule) Peers(rounds int) ([]ident.Peer, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	var out []ident.Peer
	for t := 1; t <= rounds; t++ {
		for _, w := range s.row(uint64(t)) {
			out = append(out, w.id)
		}
		out = append(out, s.recipients(uint64(t))...)
	}
	slices.SortFunc(out, func(a, b ident.Peer) int { return slices.Compare(a[:], b[:]) })
	return slices.Compact(out), nil
}
