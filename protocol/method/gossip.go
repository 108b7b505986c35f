package method

import (
	"fmt"
	"math/rand/v2"

	"github.com/peerlearn/peerlearn/protocol/gossip"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Gossip is Gossip Learning (gossip.Node: every Period ticks the model
// goes to a random peer; a received model is merged by age and trained
// once) as a Core.
type Gossip struct {
	self  ident.Peer
	max   int // MaxRounds: trainings, then the model is final (0: no bound)
	node  *gossip.Node
	model []float32 // the model the outstanding Train started from
	round int
	busy  bool
	late  uint64 // models that arrived once done (the node never saw them)
	stale uint64 // models dropped once done: late ones and one that waited
}

// NewGossip returns a Gossip core publishing initial (kept: do not
// modify it); rng draws its peer choices. After maxRounds trainings (0:
// no bound) its Role is "done" and its model final, as D-PSGD's and
// PENS's are: it still goes to a random peer every Period (peers still
// training merge it), but models that arrive are counted (Stale) and
// dropped. Were they merged, the final model would depend on how long
// after its last training a peer is read, which neither a real peer nor
// the simulator can pin down.
func NewGossip(cfg gossip.Config, rng *rand.Rand, initial []float32, maxRounds int) (*Gossip, error) {
	if maxRounds < 0 {
		return nil, fmt.Errorf("%w: MaxRounds %d", ErrConfig, maxRounds)
	}
	n, err := gossip.NewNode(cfg, rng)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := n.Init(initial); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return &Gossip{self: cfg.ID, node: n, max: maxRounds}, nil
}

// Node returns the wrapped node (for its Stats).
func (g *Gossip) Node() *gossip.Node { return g.node }

// SetPeers implements Core: the peer-sampling view.
func (g *Gossip) SetPeers(ids []ident.Peer) error { return g.node.SetPeers(ids) }

// Tick implements Core.
func (g *Gossip) Tick() { g.node.Tick() }

// Step implements Core: a MsgModel with its payload.
func (g *Gossip) Step(from ident.Peer, header []byte, params []float32) error {
	m, err := decodeFrom(from, header, params)
	if err != nil {
		return err
	}
	if g.done() {
		g.late++
		g.stale++
		return nil
	}
	m.To = g.self
	return g.node.Step(m)
}

// decodeFrom decodes a gossip header from peer from with its payload.
func decodeFrom(from ident.Peer, header []byte, params []float32) (gossip.Message, error) {
	m, err := gossip.Decode(header)
	switch {
	case err != nil:
		return m, err
	case m.From != from:
		return m, fmt.Errorf("%w: %v claims to be %v", ErrForged, from, m.From)
	case len(params) != int(m.NumParams):
		return m, fmt.Errorf("%w: %d parameters for a header of %d", ErrPayload, len(params), m.NumParams)
	}
	m.Params = params
	return m, nil
}

// Trained implements Core.
func (g *Gossip) Trained(params []float32, samples int) error {
	if params == nil {
		params = g.model // failed: the merged model stands
	}
	g.busy, g.model = false, nil
	g.round++
	return g.node.ReportTrained(params, uint64(max(samples, 0)))
}

// HasReady implements Core.
func (g *Gossip) HasReady() bool { return g.node.HasReady() }

// Ready implements Core.
func (g *Gossip) Ready() Ready {
	var out Ready
	for g.node.HasReady() {
		rd := g.node.Ready()
		out.Sends = append(out.Sends, encodeAll(rd.Messages)...)
		u := rd.Update
		if u == nil {
			continue
		}
		if g.done() {
			// The model that waited through the last training, merged
			// as that training was reported: dropped like a late one.
			// Its Update is never reported, so the node keeps the last
			// trained model published (with its age) and, Step no
			// longer reaching it, merges nothing more.
			g.stale++
			continue
		}
		g.busy, g.model = true, append([]float32(nil), u.Params...)
		out.Train = &Train{Params: u.Params}
	}
	return out
}

func (g *Gossip) done() bool { return g.max > 0 && g.round >= g.max }

// encodeAll encodes messages the node made (Encode cannot fail on them).
func encodeAll(ms []gossip.Message) []Send {
	out := make([]Send, 0, len(ms))
	for _, m := range ms {
		h, err := gossip.Encode(m)
		if err != nil {
			panic(fmt.Sprintf("method: encoding a node's own message: %v", err))
		}
		out = append(out, Send{To: m.To, Header: h, Params: m.Params})
	}
	return out
}

// Model implements Core.
func (g *Gossip) Model() []float32 { p, _ := g.node.Model(); return p }

// Status implements Core.
func (g *Gossip) Status() Status {
	st := g.node.Stats()
	role := "idle"
	switch {
	case g.busy:
		role = "training"
	case g.done():
		role = "done"
	}
	return Status{Method: "gossip", Round: g.round, MaxRounds: g.max, Role: role, Peers: len(g.node.Peers()),
		ModelsSent: st.Sent, ModelsReceived: st.Received + g.late, Stale: g.stale, Refused: st.Rejected}
}

// Evaluated implements Core: this core asks for no evaluation.
func (*Gossip) Evaluated(uint64, float64, float64, int) error { return ErrNoEval }
