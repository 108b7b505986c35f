package overlay

import (
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Node is one peer's NDMP state machine. It has no clock, network or
// goroutine: its driver feeds it received messages (Step) and the passage
// of time (Tick), and collects what it wants done (Ready), then calls
// Advance. A Node is not safe for concurrent use; call it from one
// goroutine (or one scheduler) only. It knows only what messages told it.
type Node struct {
	cfg    Config
	id     ident.Peer
	coords []Coord
	now    int64 // ticks since creation
	state  nodeState

	peers  []*peer     // the neighbour set, in adoption order
	slots  [][2]*peer  // slots[space][side]
	tombs  []tombstone // recently failed or departed neighbours
	stalls []stall     // failed neighbours that came back (stall.go)
	grace  []excuse    // displaced neighbours a joiner is about to tell
	waits  []pending   // discoveries this node will answer once it can

	contacts   []ident.Peer // live members to join through if cut off (contacts.go)
	remembered []memory     // failed neighbours to probe for a merge (merge.go)
	nextProbe  int64        // tick of the next merge probe
	cut        bool         // failures have just taken its last neighbour
	discovered uint32       // spaces whose DiscoverReply has arrived (bit = space)
	lastJoin   int64        // tick the last Join was sent
	hot        []int64      // per space: churn repair runs until this tick
	hbPhase    int64        // heartbeat timer phase, drawn from Rand
	rpPhase    int64        // periodic-repair timer phase, drawn from Rand
	pool       intervals    // heartbeat intervals from all neighbours (detector.go)
	phiScale   float64      // the failure timeout beyond the mean, in standard deviations (detector.go)

	recs      recordStore  // verified peer records (records.go)
	msgs      []Message    // outbox since the last Advance
	delivered []Delivery   // Route payloads for this node since the last Advance
	prev      []ident.Peer // neighbour set at the last Advance
	stats     Stats
}

type nodeState uint8

const (
	stateMember  nodeState = iota // in the overlay (or alone, founding it)
	stateJoining                  // Join sent, some spaces not yet discovered
	stateLeft                     // left: takes no more input
)

// NewNode returns a node with the given ID, alone: the first node of an
// overlay needs nothing more; any other calls Join.
func NewNode(id ident.Peer, cfg Config) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if id == (ident.Peer{}) {
		return nil, fmt.Errorf("%w: zero ID is reserved", ErrInvalidConfig)
	}
	coords := coordsOf(id, cfg.Spaces)
	if a := cfg.Admission; a != nil {
		if err := admission.VerifyFor(&a.Self, id, a.policy()); err != nil {
			return nil, fmt.Errorf("%w: own token: %w", ErrInvalidConfig, err)
		}
		coords = placeOf(&a.Self, cfg.Spaces)
	}
	n := &Node{
		cfg:     cfg,
		id:      id,
		coords:  coords,
		recs:    recordStore{byID: map[ident.Peer]*record{}},
		slots:   make([][2]*peer, cfg.Spaces),
		hot:     make([]int64, cfg.Spaces),
		hbPhase: int64(cfg.Rand.IntN(cfg.HeartbeatTicks)),
	}
	if cfg.PhiThreshold > 0 {
		n.phiScale = cfg.PhiThreshold * math.Ln10
	}
	if cfg.RepairTicks > 0 {
		n.rpPhase = int64(cfg.Rand.IntN(cfg.RepairTicks))
	}
	n.scheduleProbe() // drawn last: the other phases are as before merging existed
	return n, nil
}

// ID returns the node's ID.
func (n *Node) ID() ident.Peer { return n.id }

// Spaces returns L.
func (n *Node) Spaces() int { return n.cfg.Spaces }

// Joined reports whether the node is a member: it has founded the overlay
// or has heard back from its discovery in every space (repairs may still
// be under way).
func (n *Node) Joined() bool { return n.state == stateMember }

// Left reports whether the node has left.
func (n *Node) Left() bool { return n.state == stateLeft }

// Now returns the number of ticks the node has seen.
func (n *Node) Now() int64 { return n.now }

func (n *Node) allSpaces() uint32 { return 1<<uint(n.cfg.Spaces) - 1 }

// Join starts joining the overlay that member via belongs to: via runs
// Neighbor_discovery for this node in every space. If replies are
// missing after RetryTicks the Join is sent again (to a neighbour if the
// node has one by then, else to via).
func (n *Node) Join(via ident.Peer) error {
	if n.state == stateLeft {
		return ErrStopped
	}
	if via == n.id || via == (ident.Peer{}) {
		return fmt.Errorf("%w: cannot join through %v", ErrMisaddressed, via)
	}
	n.state = stateJoining
	n.addContact(via)
	n.discovered = 0
	n.sendJoin(via)
	return nil
}

func (n *Node) sendJoin(to ident.Peer) {
	n.lastJoin = n.now
	n.send(Message{Type: MsgJoin, To: to, Roles: n.allSpaces() &^ n.discovered})
}

// Leave runs the leave protocol: every neighbour is told the node's
// adjacent nodes so that each pair links to each other. The node then
// takes no more input; its last Ready holds the Leave messages and the
// removal of every neighbour.
func (n *Node) Leave() error {
	if n.state == stateLeft {
		return ErrStopped
	}
	t := n.Table()
	ring := make([]ident.Peer, 0, 2*len(t))
	for _, a := range t {
		ring = append(ring, a.Pred, a.Succ)
	}
	for _, p := range n.peers {
		n.send(Message{Type: MsgLeave, To: p.id, Peers: ring})
	}
	for len(n.peers) > 0 {
		n.dropPeer(n.peers[0])
	}
	n.state = stateLeft
	return nil
}

// Route sends payload to the node closest to target in space by greedy
// routing. It surfaces in that node's Ready.Delivered (this node's own,
// if it is the closest).
func (n *Node) Route(space int, target Coord, payload []byte) error {
	return n.originate(space, target, ident.Peer{}, payload)
}

// RouteTo sends payload to the node with the given ID by greedy routing
// in space 0 towards its coordinate. If no such node is in the overlay the
// message is dropped where routing ends (Stats.Undeliverable).
func (n *Node) RouteTo(id ident.Peer, payload []byte) error {
	if id == (ident.Peer{}) {
		return fmt.Errorf("%w: zero target ID", ErrMisaddressed)
	}
	cs, ok := n.coordsFor(id)
	if !ok {
		return fmt.Errorf("%w: route to %v", ErrNoRecord, id)
	}
	return n.originate(0, cs[0], id, payload)
}

func (n *Node) originate(space int, target Coord, targetID ident.Peer, payload []byte) error {
	if n.state == stateLeft {
		return ErrStopped
	}
	if space < 0 || space >= n.cfg.Spaces {
		return fmt.Errorf("%w: %d", ErrBadSpace, space)
	}
	if len(payload) > n.cfg.MaxPayload {
		return fmt.Errorf("%w: payload of %d bytes, limit %d", ErrTooLarge, len(payload), n.cfg.MaxPayload)
	}
	n.route(Message{
		Type: MsgRoute, From: n.id, To: n.id, Origin: n.id, Space: uint8(space), Best: noScore,
		Target: target, TargetID: targetID, Payload: append([]byte(nil), payload...),
	})
	return nil
}

// send queues m for the driver, stamping the sender.
func (n *Node) send(m Message) {
	m.From = n.id
	n.attachRecords(&m)
	n.stats.Sent[m.Type]++
	n.msgs = append(n.msgs, m)
}
