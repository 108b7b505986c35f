package gossip

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/peerlearn/peerlearn/internal/f32"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Config configures one Gossip Learning node. Times are in ticks.
type Config struct {
	// ID is this node. Must be set.
	ID ident.Peer
	// Arch and NumParams describe the model; models of another
	// architecture or length are refused. Must be set.
	Arch      string
	NumParams int
	// Period is Δ, the ticks between two sends (the Plexus paper's GL
	// baseline uses a 60 s round).
	Period int
}

// DefaultConfig returns a 60 s period at 100 ms ticks; the caller sets
// ID, Arch and NumParams.
func DefaultConfig() Config { return Config{Period: 600} }

// Validate checks every field.
func (c Config) Validate() error {
	if err := validateModel(c.ID, c.Arch, c.NumParams); err != nil {
		return err
	}
	if c.Period < 1 {
		return fmt.Errorf("%w: Period %d", ErrConfig, c.Period)
	}
	return nil
}

// validateModel checks what every gossip node's config names: its ID
// and the model it exchanges.
func validateModel(id ident.Peer, arch string, numParams int) error {
	switch {
	case id == ident.Peer{}:
		return fmt.Errorf("%w: ID not set", ErrConfig)
	case len(arch) == 0 || len(arch) > MaxArchLen:
		return fmt.Errorf("%w: Arch %q", ErrConfig, arch)
	case numParams < 1 || numParams > MaxParams:
		return fmt.Errorf("%w: NumParams %d", ErrConfig, numParams)
	}
	return nil
}

// Stats counts what a node did; all counters only grow.
type Stats struct {
	Sent, Received  uint64 // models
	BytesSent       uint64 // header plus payload
	BytesReceived   uint64
	Merges          uint64 // age-weighted merges
	Adoptions       uint64 // received models taken as is (no model yet)
	Updates         uint64 // Updates handed out
	Replaced        uint64 // waiting models replaced by a newer arrival
	Rejected        uint64 // messages dropped by Step
	SkippedNoPeer   uint64 // periods with an empty view
	SkippedNoModel  uint64 // periods before the first model
	UpdateUnitsDone uint64 // sum of ReportTrained's units
}

// Update asks the caller to train Params (a fresh slice the caller owns:
// train it in place) on local data and report it with ReportTrained.
type Update struct {
	Params []float32
	// Age is the merged model's age, before the update.
	Age uint64
	// From is the peer whose model was merged.
	From ident.Peer
}

// Ready is what the caller must carry out: send Messages (Params as
// payload) and, if Update is set, run it and call ReportTrained.
type Ready struct {
	Messages []Message
	Update   *Update
}

// Node is one Gossip Learning peer. It is not safe for concurrent use.
type Node struct {
	cfg   Config
	rng   *rand.Rand
	peers []ident.Peer
	now   int64
	next  int64 // tick of the next send

	params []float32 // the published model; nil before the first
	age    uint64

	busy    bool     // an Update is out
	upAge   uint64   // its merged age
	waiting *Message // newest model received while busy

	msgs   []Message
	update *Update
	stats  Stats
}

// NewNode validates cfg and returns a node without a model; its first
// send comes at a random tick in [1, Period] (drawn from rng, which the
// node keeps for its peer choices), so nodes started together do not
// send in lockstep.
func NewNode(cfg Config, rng *rand.Rand) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, fmt.Errorf("%w: nil random source", ErrConfig)
	}
	return &Node{cfg: cfg, rng: rng, next: 1 + int64(rng.IntN(cfg.Period))}, nil
}

// Stats returns the counters.
func (n *Node) Stats() Stats { return n.stats }

// Model returns the published model (shared: do not modify) and its age.
func (n *Node) Model() ([]float32, uint64) { return n.params, n.age }

// SetPeers replaces the peer-sampling view the node sends to.
func (n *Node) SetPeers(ids []ident.Peer) error {
	seen := make(map[ident.Peer]bool, len(ids))
	for _, id := range ids {
		if id == n.cfg.ID || seen[id] || id == (ident.Peer{}) {
			return fmt.Errorf("%w: %v", ErrPeers, id)
		}
		seen[id] = true
	}
	n.peers = slices.Clone(ids)
	return nil
}

// Init publishes the node's initial model with age 0 (the node keeps
// params: do not modify it afterwards).
func (n *Node) Init(params []float32) error {
	if err := n.checkParams(params); err != nil {
		return err
	}
	n.params, n.age = params, 0
	return nil
}

// HasReady reports whether Ready has anything to hand out.
func (n *Node) HasReady() bool { return len(n.msgs) > 0 || n.update != nil }

// Ready hands out, and forgets, everything accumulated since the last
// call.
func (n *Node) Ready() Ready {
	rd := Ready{Messages: n.msgs, Update: n.update}
	n.msgs, n.update = nil, nil
	return rd
}

// Tick advances time by one tick; every Period ticks the published model
// goes to one peer of the view chosen uniformly at random.
func (n *Node) Tick() {
	n.now++
	if n.now < n.next {
		return
	}
	n.next = n.now + int64(n.cfg.Period)
	switch {
	case n.params == nil:
		n.stats.SkippedNoModel++
	case len(n.peers) == 0:
		n.stats.SkippedNoPeer++
	default:
		m := Message{Type: MsgModel, From: n.cfg.ID, To: n.peers[n.rng.IntN(len(n.peers))],
			Age: n.age, Arch: n.cfg.Arch, NumParams: uint32(n.cfg.NumParams), Params: n.params}
		n.stats.Sent++
		n.stats.BytesSent += uint64(WireBytes(m))
		n.msgs = append(n.msgs, m)
	}
}

// Step hands the node a received model. If no update is running it is
// merged at once and handed out as an Update; otherwise it waits for
// ReportTrained, replacing any model already waiting.
func (n *Node) Step(m Message) error {
	if (m.To != n.cfg.ID && m.To != ident.Peer{}) || m.From == n.cfg.ID {
		n.stats.Rejected++
		return fmt.Errorf("%w: %v -> %v", ErrNotForMe, m.From, m.To)
	}
	if err := checkFields(&m); err != nil {
		n.stats.Rejected++
		return err
	}
	if m.Type != MsgModel {
		n.stats.Rejected++
		return fmt.Errorf("%w: a %v is D-PSGD's", ErrBadModel, m.Type)
	}
	if m.Arch != n.cfg.Arch || int(m.NumParams) != n.cfg.NumParams {
		n.stats.Rejected++
		return fmt.Errorf("%w: %q with %d parameters", ErrBadModel, m.Arch, m.NumParams)
	}
	if err := n.checkParams(m.Params); err != nil {
		n.stats.Rejected++
		return err
	}
	n.stats.Received++
	n.stats.BytesReceived += uint64(WireBytes(m))
	if n.busy {
		if n.waiting != nil {
			n.stats.Replaced++
		}
		n.waiting = &m
		return nil
	}
	return n.receive(m)
}

// receive merges m (or adopts it) and hands out the Update.
func (n *Node) receive(m Message) error {
	out := make([]float32, n.cfg.NumParams)
	age := m.Age
	if n.params == nil {
		copy(out, m.Params)
		n.stats.Adoptions++
	} else {
		var err error
		if age, err = Merge(n.params, m.Params, n.age, m.Age, out); err != nil {
			return err
		}
		n.stats.Merges++
	}
	n.busy, n.upAge = true, age
	n.update = &Update{Params: out, Age: age, From: m.From}
	n.stats.Updates++
	return nil
}

// ReportTrained publishes the trained model of the outstanding Update
// (the node keeps params) with age = the Update's Age + units (the
// samples or steps the update used), and merges a waiting model if any.
func (n *Node) ReportTrained(params []float32, units uint64) error {
	if !n.busy {
		return ErrNoUpdate
	}
	if err := n.checkParams(params); err != nil {
		return err
	}
	age := n.upAge
	if units > MaxAge || age+units > MaxAge {
		return fmt.Errorf("%w: age %d + %d", ErrBadModel, age, units)
	}
	n.params, n.age, n.busy = params, age+units, false
	n.stats.UpdateUnitsDone += units
	if w := n.waiting; w != nil {
		n.waiting = nil
		return n.receive(*w)
	}
	return nil
}

// checkParams requires NumParams finite values.
func (n *Node) checkParams(v []float32) error {
	if len(v) != n.cfg.NumParams || f32.FirstNonFinite(v) >= 0 {
		return fmt.Errorf("%w: %d parameters (want %d finite)", ErrBadModel, len(v), n.cfg.NumParams)
	}
	return nil
}

// Peers returns the peer-sampling view.
func (n *Node) Peers() []ident.Peer { return n.peers }
