package initgain

import (
	"math"
	"math/rand/v2"
	"slices"
)

// PushSum is one node of the push-sum protocol (Kempe, Dobra and Gehrke,
// 2003) set up to count the nodes, a gossip estimate of n for ApproxGain.
// Every node holds a value s = 1 and a weight w: 1 at a single initiator
// and 0 elsewhere, so Σs = n and Σw = 1. Each round (Tick) a node keeps
// half of (s, w) and pushes the other half to one neighbour chosen
// uniformly at random; received pairs are added (Step). Mass is
// conserved, and on a connected graph s/w converges to Σs/Σw = n at every
// node, the error shrinking geometrically: O(log n + log 1/ε) rounds on
// an expander.
//
// The node is a pure state machine: no clock, no I/O; the caller runs the
// rounds and delivers messages. A lost message loses mass and biases the
// estimate, so run it over a reliable transport (or restart it). Only one
// node may be the initiator; with none, no node ever gets an estimate.
// Real peers, which know no initiator, run protocol/pushsum instead: it
// elects the smallest ID as the initiator alongside and pushes to every
// neighbour each round (peer/netpeer, init he-gain with gain 0).
type PushSum struct {
	id   int
	nbrs []int
	s, w float64
	rng  *rand.Rand
}

// PushSumMsg carries half of a node's mass to a neighbour.
type PushSumMsg struct {
	From, To int
	S, W     float64
}

// NewPushSum returns node id with the given neighbours (ids other than
// id, copied), starting with s = 1 and w = 1 if initiator else 0.
// Targets are drawn from rng, so a seeded rng gives a deterministic run.
func NewPushSum(id int, neighbours []int, initiator bool, rng *rand.Rand) (*PushSum, error) {
	if rng == nil {
		return nil, errorf("push-sum node %d: nil rng", id)
	}
	for _, v := range neighbours {
		if v == id {
			return nil, errorf("push-sum node %d lists itself as a neighbour", id)
		}
	}
	p := &PushSum{id: id, nbrs: slices.Clone(neighbours), s: 1, rng: rng}
	if initiator {
		p.w = 1
	}
	return p, nil
}

// ID returns the node's id.
func (p *PushSum) ID() int { return p.id }

// Tick starts a round: it halves the node's (s, w) and returns the other
// half addressed to a random neighbour. A node without neighbours keeps
// everything and returns ok = false.
func (p *PushSum) Tick() (msg PushSumMsg, ok bool) {
	if len(p.nbrs) == 0 {
		return PushSumMsg{}, false
	}
	to := p.nbrs[p.rng.IntN(len(p.nbrs))]
	p.s /= 2
	p.w /= 2
	return PushSumMsg{From: p.id, To: to, S: p.s, W: p.w}, true
}

// Step adds a received message to the node's mass. It rejects a message
// addressed to another node or carrying negative or non-finite mass.
func (p *PushSum) Step(m PushSumMsg) error {
	if m.To != p.id {
		return errorf("push-sum message for node %d delivered to node %d", m.To, p.id)
	}
	if !(m.S >= 0) || !(m.W >= 0) || math.IsInf(m.S, 0) || math.IsInf(m.W, 0) {
		return errorf("push-sum message from %d with mass (%v, %v)", m.From, m.S, m.W)
	}
	p.s += m.S
	p.w += m.W
	return nil
}

// Estimate returns the node's current estimate s/w of n; ok is false
// while no weight has reached the node yet.
func (p *PushSum) Estimate() (n float64, ok bool) {
	if p.w <= 0 {
		return 0, false
	}
	return p.s / p.w, true
}

// Mass returns the node's (s, w), for conservation checks.
func (p *PushSum) Mass() (s, w float64) { return p.s, p.w }
