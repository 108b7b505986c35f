package overlay

import (
	"fmt"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Step hands the node one message received from the network. It returns
// an error (and changes nothing) for a message that is invalid, not for
// this node, or for a space this node does not have.
func (n *Node) Step(m Message) error {
	if n.state == stateLeft {
		return ErrStopped
	}
	if m.To != n.id || m.From == n.id {
		return fmt.Errorf("%w: %v", ErrMisaddressed, m)
	}
	if err := m.Validate(); err != nil {
		return err
	}
	if int(m.Space) >= n.cfg.Spaces {
		return fmt.Errorf("%w: %v for space %d of %d", ErrBadSpace, m.Type, m.Space, n.cfg.Spaces)
	}
	if m.Type == MsgLeave && len(m.Peers) != 2*n.cfg.Spaces {
		return fmt.Errorf("%w: Leave with %d peers for %d spaces", ErrMalformed, len(m.Peers), n.cfg.Spaces)
	}
	if n.admitted() {
		if err := n.takeRecords(&m); err != nil {
			return err
		}
	}
	n.stats.Received[m.Type]++
	if m.Type != MsgLeave {
		if n.departed(m.From) {
			return nil // a straggler from a node that has said goodbye
		}
		n.heardFrom(m.From)
		if p := n.find(m.From); p != nil {
			p.lastHeard = n.now
		}
	}
	space := int(m.Space)
	switch m.Type {
	case MsgJoin:
		for i := range n.cfg.Spaces {
			if m.Roles&(1<<uint(i)) != 0 {
				n.discover(Message{Type: MsgDiscover, From: n.id, To: n.id, Origin: m.From, Space: uint8(i), Best: noScore})
			}
		}
	case MsgDiscover:
		n.discover(m)
	case MsgDiscoverReply:
		n.onDiscoverReply(m)
	case MsgLink, MsgHeartbeat:
		if p := n.find(m.From); p != nil && m.Type == MsgHeartbeat {
			n.heartbeatFrom(p)
			n.learnNeighbors(p, m.Peers)
		}
		for i := range n.cfg.Spaces {
			for _, s := range [2]Side{Pred, Succ} {
				if m.Roles&RoleBit(i, s) != 0 {
					// "you are my s neighbour": we should hold m.From on the other side.
					n.claim(m.From, i, s.Opposite())
				}
			}
		}
	case MsgRepairReply:
		n.claim(m.From, space, m.Side)
	case MsgHint:
		if n.consider(m.Peers[0], space, m.Side) {
			n.find(m.Peers[0]).link = true
			// We were wrong about this ring: check it with a repair round
			// (hints alone walk one node per round).
			n.hot[space] = max(n.hot[space], n.now+1)
		}
	case MsgLeave:
		n.onLeave(m)
	case MsgRepair:
		n.repair(m)
	case MsgRoute:
		n.route(m)
	}
	return nil
}

// onDiscoverReply adopts the joiner's adjacent nodes in one space and
// tells the one that did not answer (the answering node linked already).
func (n *Node) onDiscoverReply(m Message) {
	space := int(m.Space)
	for k, side := range [2]Side{Pred, Succ} {
		id := m.Peers[k]
		if n.consider(id, space, side) && id != m.From {
			n.find(id).link = true
		}
	}
	if m.Roles&ReplyGuess != 0 {
		n.hot[space] = max(n.hot[space], n.now+1) // verify with a repair round
	}
	n.discovered |= 1 << uint(space)
	if n.state == stateJoining && n.discovered == n.allSpaces() {
		n.state = stateMember
	}
}

// claim handles "I am your side neighbour in space" from x: adopt x, or,
// if this node knows a node in between, point x at it with a Hint.
func (n *Node) claim(x ident.Peer, space int, side Side) {
	if h := n.slots[space][side]; h != nil && h.id == x {
		return
	}
	if n.consider(x, space, side) {
		return
	}
	if n.excused(x, RoleBit(space, side)) {
		return // a joiner we just answered is about to tell x itself
	}
	if h := n.slots[space][side]; h != nil {
		n.send(Message{Type: MsgHint, To: x, Space: uint8(space), Side: side.Opposite(), Peers: []ident.Peer{h.id}})
	}
}

// onLeave replaces a departing neighbour, in each slot it held, by its
// own adjacent node on the far side (the leave protocol).
func (n *Node) onLeave(m Message) {
	n.bury(m.From, true, 0)
	n.forgetContact(m.From)
	p := n.find(m.From)
	if p == nil {
		return
	}
	roles := p.roles
	n.dropPeer(p)
	for i := range n.cfg.Spaces {
		for _, s := range [2]Side{Pred, Succ} {
			if roles&RoleBit(i, s) != 0 {
				// The leaver was our s neighbour; its own s neighbour is our new one.
				n.consider(m.Peers[2*i+int(s)], i, s)
			}
		}
	}
}
