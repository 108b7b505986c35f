package overlay

import (
	"math"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Routing. Greedy routing (Neighbor_discovery, Route) forwards to the
// neighbour, from any space, closest to the target coordinate by circular
// distance (ID tie-break), and stops where no neighbour is closer than
// the node itself (Theorem 1: in a correct overlay that is the closest
// node). Directional routing (Neighbor_repair) moves one way round the
// ring, each hop strictly closer to the sought slot, and stops where no
// neighbour is (Theorem 2). Neighbours suspected dead (silent for
// SuspectTicks) are used only where no other neighbour makes progress:
// the stop rule stays the paper's.
//
// Lookahead (Config.Lookahead) changes only the choice of next hop, never
// the stop rule: a node may forward to a neighbour w, even one no closer
// itself, when one of w's neighbours (as w's last heartbeat listed them)
// scores better than anything this node's plain rule offers and better
// than the message's Best, the best score any lookahead hop has promised
// so far; Best then becomes that score. Each hop thus either lowers Best
// (a lookahead hop) or, keeping Best, moves strictly closer (a plain
// hop), so no route loops. Scores are the metric as a uint64 (circular
// distance, or arc length for a direction); lower is better.
//
// Cost per hop: O(2L) plain, O((2L)^2) with lookahead.

const noScore = math.MaxUint64

// greedyNext returns the plain greedy next hop, or nil if this node is the
// closest to target in space among itself and its neighbours. exclude (a
// joiner looking for its place) is never chosen. A suspect neighbour is
// taken only if no other neighbour is closer than this node.
func (n *Node) greedyNext(space int, target Coord, exclude ident.Peer) *peer {
	var best [2]*peer // [0]: best trusted, [1]: best suspect
	for _, p := range n.peers {
		if p.id == exclude {
			continue
		}
		k := 0
		if n.suspect(p) {
			k = 1
		}
		bid, bc := n.id, n.coords[space]
		if b := best[k]; b != nil {
			bid, bc = b.id, b.coords[space]
		}
		if Closer(p.id, p.coords[space], bid, bc, target) {
			best[k] = p
		}
	}
	if best[0] != nil {
		return best[0]
	}
	return best[1]
}

// directionalNext returns the plain next hop of a Neighbor_repair for
// origin's side slot in space, or nil if this node is where it stops.
// Seeking the successor, the message moves counterclockwise towards the
// origin from its far side, always to the neighbour that comes first
// clockwise after the origin; seeking the predecessor, the mirror image.
// Suspect neighbours as in greedyNext.
func (n *Node) directionalNext(space int, origin pos, side Side) *peer {
	var best [2]*peer
	for _, p := range n.peers {
		if p.id == origin.id {
			continue
		}
		k := 0
		if n.suspect(p) {
			k = 1
		}
		pp := n.pos(p, space)
		switch b := best[k]; {
		case b != nil:
			if closerOn(side, origin, pp, n.pos(b, space)) {
				best[k] = p
			}
		case n.id == origin.id || closerOn(side, origin, pp, n.selfPos(space)):
			best[k] = p
		}
	}
	if best[0] != nil {
		return best[0]
	}
	return best[1]
}

// lookahead returns the neighbour whose two-hop neighbourhood (itself and
// its listed neighbours) holds the best score, and that score.
func (n *Node) lookahead(space int, score func(Coord) uint64, skip ident.Peer) (*peer, uint64) {
	var best *peer
	bs := uint64(noScore)
	L := n.cfg.Spaces
	for _, p := range n.peers {
		if p.id == skip || n.suspect(p) {
			continue
		}
		s := score(p.coords[space])
		for k := space; k < len(p.nbrCoords); k += L {
			s = min(s, score(p.nbrCoords[k]))
		}
		if s < bs {
			best, bs = p, s
		}
	}
	return best, bs
}

// next combines the plain rule's choice (plain, nil to stop) with
// lookahead: it returns the hop to take, or nil to stop here, updating
// m.Best.
func (n *Node) next(m *Message, plain *peer, score func(Coord) uint64, skip ident.Peer) *peer {
	if n.cfg.Lookahead {
		ps := score(n.coords[m.Space])
		if plain != nil {
			ps = score(plain.coords[m.Space])
		}
		if w, ws := n.lookahead(int(m.Space), score, skip); w != nil && ws < ps && ws < m.Best {
			m.Best = ws
			return w
		}
	}
	return plain
}

// forward sends a routed message one hop further, or drops it at the hop
// limit.
func (n *Node) forward(m Message, to *peer) {
	if int(m.Hops) >= n.cfg.MaxHops {
		n.stats.DroppedHops++
		return
	}
	m.To = to.id
	m.Hops++
	n.send(m)
}

// greedyScore scores coordinates by circular distance to target; the
// excluded coordinate (a joiner's own) scores worst.
func greedyScore(target Coord, excluded bool) func(Coord) uint64 {
	return func(c Coord) uint64 {
		if excluded && c == target {
			return noScore
		}
		return CircularDistance(c, target)
	}
}

// arcScore scores coordinates by the arc from the origin's coordinate o
// in the direction of the sought side (the origin itself scores worst).
func arcScore(o Coord, side Side) func(Coord) uint64 {
	return func(c Coord) uint64 {
		d := uint64(c - o)
		if side == Pred {
			d = uint64(o - c)
		}
		if d == 0 {
			return noScore
		}
		return d
	}
}

// discover runs one step of Neighbor_discovery for m.Origin in m.Space.
func (n *Node) discover(m Message) {
	space := int(m.Space)
	target := n.coordOf(m.Origin, space)
	plain := n.greedyNext(space, target, m.Origin)
	if next := n.next(&m, plain, greedyScore(target, true), m.Origin); next != nil {
		n.forward(m, next)
		return
	}
	if n.slots[space][Pred] == nil || n.slots[space][Succ] == nil {
		// Alone but for the joiner itself (it may hold another space's
		// slots already): answer; knowing others: wait until we can.
		if n.knowsOthers(m.Origin) && n.postpone(m) {
			return
		}
	}
	n.answerDiscover(m.Origin, space, false)
}

// knowsOthers reports whether the node has a neighbour other than u.
func (n *Node) knowsOthers(u ident.Peer) bool {
	for _, p := range n.peers {
		if p.id != u {
			return true
		}
	}
	return false
}

// answerDiscover: this node is the closest to joiner u in space. It finds
// the adjacent node p with u's coordinate on the arc between itself and p,
// links u and tells u that it and p are u's adjacent nodes. guess flags
// an answer given without knowing both of its own adjacent nodes.
func (n *Node) answerDiscover(u ident.Peer, space int, guess bool) {
	me := n.selfPos(space)
	xu := pos{n.coordOf(u, space), u}
	pr, su := n.slots[space][Pred], n.slots[space][Succ]
	var pred, succ ident.Peer
	switch {
	case pr == nil && su == nil: // alone in this space: a ring of two
		pred, succ = n.id, n.id
		n.consider(u, space, Succ)
		n.consider(u, space, Pred)
	case su != nil && cwLess(me, xu, n.pos(su, space)):
		pred, succ = n.id, su.id
		if n.consider(u, space, Succ) {
			n.excuse(succ, RoleBit(space, Succ))
		}
	case pr != nil && closerOn(Pred, me, xu, n.pos(pr, space)):
		pred, succ = pr.id, n.id
		if n.consider(u, space, Pred) {
			n.excuse(pred, RoleBit(space, Pred))
		}
	case su == nil: // u is clockwise of us and we know no successor
		pred, succ = n.id, pr.id
		n.consider(u, space, Succ)
	case pr == nil:
		pred, succ = su.id, n.id
		n.consider(u, space, Pred)
	default: // inconsistent table: best guess, repairs will fix it
		pred, succ = n.id, su.id
	}
	if pred == u || succ == u {
		return // u already holds the slot: it is linked, and checks its join itself
	}
	var flags uint32
	if guess {
		flags = ReplyGuess
	}
	n.send(Message{Type: MsgDiscoverReply, To: u, Space: uint8(space), Roles: flags, Peers: []ident.Peer{pred, succ}})
}

// startRepair sends Neighbor_repair for this node's side slot in space.
func (n *Node) startRepair(space int, side Side) {
	m := Message{Type: MsgRepair, Origin: n.id, Space: uint8(space), Side: side, Best: noScore}
	plain := n.directionalNext(space, n.selfPos(space), side)
	if next := n.next(&m, plain, arcScore(n.coords[space], side), n.id); next != nil {
		n.forward(m, next)
	}
}

// repair runs one step of Neighbor_repair. Where it stops, this node is
// the origin's side neighbour: it links the origin and answers unless the
// origin reached it directly and it already held the origin (then both
// already know).
func (n *Node) repair(m Message) {
	space, u := int(m.Space), m.Origin
	if u == n.id {
		return
	}
	origin := pos{n.coordOf(u, space), u}
	plain := n.directionalNext(space, origin, m.Side)
	if next := n.next(&m, plain, arcScore(origin.c, m.Side), u); next != nil {
		n.forward(m, next)
		return
	}
	mine := m.Side.Opposite()
	had := n.slots[space][mine] != nil && n.slots[space][mine].id == u
	if n.consider(u, space, mine) || !had || m.From != u {
		n.send(Message{Type: MsgRepairReply, To: u, Space: m.Space, Side: m.Side})
	}
}

// route runs one step of Route: forward greedily, or deliver here.
func (n *Node) route(m Message) {
	space := int(m.Space)
	plain := n.greedyNext(space, m.Target, ident.Peer{})
	if next := n.next(&m, plain, greedyScore(m.Target, false), ident.Peer{}); next != nil {
		n.forward(m, next)
		return
	}
	if m.TargetID != (ident.Peer{}) && m.TargetID != n.id {
		n.stats.Undeliverable++
		return
	}
	n.delivered = append(n.delivered, Delivery{
		Origin: m.Origin, Space: space, Target: m.Target, TargetID: m.TargetID,
		Hops: int(m.Hops), Payload: m.Payload,
	})
}
