package method

import (
	"fmt"

	"github.com/peerlearn/peerlearn/protocol/gossip"
	"github.com/peerlearn/peerlearn/types/ident"
)

// DPSGD is D-PSGD on the graph of the peers' neighbour sets
// (gossip.RoundNode) as a Core.
type DPSGD struct {
	self ident.Peer
	max  int // MaxRounds
	node *gossip.RoundNode
	mix  []float32 // what the outstanding Train started from
}

// NewDPSGD returns a D-PSGD core about to train round 0 from initial
// (kept: do not modify it).
func NewDPSGD(cfg gossip.RoundConfig, initial []float32) (*DPSGD, error) {
	n, err := gossip.NewRoundNode(cfg, initial)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return &DPSGD{self: cfg.ID, node: n, max: cfg.MaxRounds}, nil
}

// Node returns the wrapped node (for its Stats).
func (d *DPSGD) Node() *gossip.RoundNode { return d.node }

// SetPeers implements Core: the graph neighbours.
func (d *DPSGD) SetPeers(ids []ident.Peer) error { return d.node.SetPeers(ids) }

// Tick implements Core.
func (d *DPSGD) Tick() { d.node.Tick() }

// Step implements Core: a MsgRound with its payload.
func (d *DPSGD) Step(from ident.Peer, header []byte, params []float32) error {
	m, err := decodeFrom(from, header, params)
	if err != nil {
		return err
	}
	m.To = d.self
	return d.node.Step(m)
}

// Trained implements Core.
func (d *DPSGD) Trained(params []float32, _ int) error {
	if params == nil {
		params = d.mix
	}
	d.mix = nil
	return d.node.ReportTrained(params)
}

// HasReady implements Core.
func (d *DPSGD) HasReady() bool { return d.node.HasReady() }

// Ready implements Core.
func (d *DPSGD) Ready() Ready {
	msgs, tr := d.node.Ready()
	out := Ready{Sends: encodeAll(msgs)}
	if tr != nil {
		d.mix = append([]float32(nil), tr...)
		out.Train = &Train{Params: tr}
	}
	return out
}

// Model implements Core.
func (d *DPSGD) Model() []float32 { return d.node.Model() }

// Status implements Core.
func (d *DPSGD) Status() Status {
	st := d.node.Stats()
	r, training := d.node.Round()
	role := "waiting"
	switch {
	case d.node.Done():
		role = "done"
	case training:
		role = "training"
	}
	return Status{Method: "dpsgd", Round: int(r), MaxRounds: d.max, Role: role, Peers: len(d.node.Peers()),
		ModelsSent: st.Sent, ModelsReceived: st.Received, Refused: st.Rejected, Timeouts: st.Timeouts, Stale: st.Stale}
}

// Evaluated implements Core: this core asks for no evaluation.
func (*DPSGD) Evaluated(uint64, float64, float64, int) error { return ErrNoEval }
