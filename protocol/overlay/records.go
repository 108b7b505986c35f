package overlay

import (
	"fmt"

	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Admitted placement and peer records (types/admission). With
// Config.Admission set, a node's coordinates are admission.Place(id, salt,
// i), the salt coming from the signalling server's token, and nobody can
// place an ID it has no token for: every message carries the records
// (tokens) of the IDs it names, and a node refuses, and counts
// (Stats.NoRecord, Stats.BadRecords), a message naming an ID for which it
// has no valid record, before anything in it reaches the neighbour table.
//
// What needs a record: the sender (From) of every message but Route (it
// may be adopted: Join, Link and heartbeat claims, replies); the Origin of
// Discover and Repair (it is placed where the routing ends); every ID in
// the Peers of DiscoverReply, Hint and Leave. A heartbeat's neighbour
// list is for lookahead routing only: listed IDs without a record are
// left out of it, not refused; records for the list ride along when it
// has changed since the last heartbeat to that neighbour. A node sends
// its own record with every message but Route (182 bytes).
//
// Verification is pure: the server's public key, the task and its
// difficulty come in the Config; there is no clock. Instead of a time, a
// record must be of the node's own token's epoch or later, less one
// (tokens live two epochs); the peer runtime, which has a clock, checks
// expiry when it takes its own token from the server.

// MaxRecords bounds the records of one message: the sender, 2*MaxSpaces
// listed peers and an origin.
const MaxRecords = 2*MaxSpaces + 2

// Admission turns on admitted placement (see above).
type Admission struct {
	// Policy is what a record must satisfy: ServerKey, Task, PoWBits (Now
	// and MinEpoch are ignored: the node derives the epoch bound from
	// Self).
	Policy admission.Policy
	// Self is this node's own token; it must admit the node's ID.
	Self admission.Token
	// MaxRecords bounds the records a node keeps of non-neighbours
	// (joiners it routes for, contacts, neighbours' neighbours); the oldest
	// is forgotten first. 0: 64 * Spaces.
	MaxRecords int
}

func (a *Admission) policy() admission.Policy {
	p := a.Policy
	p.Now = 0
	p.MinEpoch = a.Self.Epoch - min(a.Self.Epoch, 1)
	return p
}

// record is a verified token and the coordinates it gives.
type record struct {
	tok    admission.Token
	coords []Coord
}

// recordStore holds verified records, bounded; neighbours' records are
// never evicted (a node attaches them to Hints, replies and Leaves).
type recordStore struct {
	byID  map[ident.Peer]*record
	order []ident.Peer // insertion order, for eviction
}

func (n *Node) admitted() bool { return n.cfg.Admission != nil }

// coordsFor returns id's coordinates: from its record under admitted
// placement (false if there is none), else Coordinate(id, i).
func (n *Node) coordsFor(id ident.Peer) ([]Coord, bool) {
	if id == n.id {
		return n.coords, true
	}
	if !n.admitted() {
		return coordsOf(id, n.cfg.Spaces), true
	}
	if p := n.find(id); p != nil {
		return p.coords, true
	}
	if r := n.recs.byID[id]; r != nil {
		return r.coords, true
	}
	return nil, false
}

// Coordinates returns the coordinates of id as this node places it (its
// record's under admitted placement), or false if it has no record.
func (n *Node) Coordinates(id ident.Peer) ([]Coord, bool) {
	cs, ok := n.coordsFor(id)
	return append([]Coord(nil), cs...), ok
}

// AddRecord verifies a peer record obtained outside the overlay (a peer
// runtime that learned a token over its own connection) and keeps it.
func (n *Node) AddRecord(tok admission.Token) error {
	if !n.admitted() {
		return nil
	}
	return n.keepRecord(tok)
}

func (n *Node) keepRecord(tok admission.Token) error {
	if err := admission.Verify(&tok, n.cfg.Admission.policy()); err != nil {
		n.stats.BadRecords++
		return fmt.Errorf("%w: %w", ErrBadRecord, err)
	}
	id := tok.Peer()
	if id == n.id {
		return nil
	}
	if r := n.recs.byID[id]; r != nil {
		if tok.Epoch > r.tok.Epoch {
			r.tok, r.coords = tok, placeOf(&tok, n.cfg.Spaces)
		}
		return nil
	}
	limit := n.cfg.Admission.MaxRecords
	if limit == 0 {
		limit = 64 * n.cfg.Spaces
	}
	for len(n.recs.byID) >= limit+len(n.peers) && len(n.recs.order) > 0 {
		old := n.recs.order[0]
		n.recs.order = n.recs.order[1:]
		if n.find(old) != nil {
			n.recs.order = append(n.recs.order, old) // a neighbour: keep
			continue
		}
		delete(n.recs.byID, old)
	}
	n.recs.byID[id] = &record{tok: tok, coords: placeOf(&tok, n.cfg.Spaces)}
	n.recs.order = append(n.recs.order, id)
	return nil
}

func placeOf(tok *admission.Token, spaces int) []Coord {
	cs := make([]Coord, spaces)
	for i := range cs {
		cs[i] = Coord(tok.Coordinate(i))
	}
	return cs
}

// takeRecords verifies and keeps m's records, then checks that every ID
// m names (see above) has one. Any failure refuses the whole message.
func (n *Node) takeRecords(m *Message) error {
	for k := range m.Records {
		if err := n.keepRecord(m.Records[k]); err != nil {
			return err
		}
	}
	for _, id := range namedIDs(m) {
		if _, ok := n.coordsFor(id); !ok {
			n.stats.NoRecord++
			return fmt.Errorf("%w: %v names %v", ErrNoRecord, m.Type, id)
		}
	}
	return nil
}

// namedIDs lists the IDs of m that need a record (see above).
func namedIDs(m *Message) []ident.Peer {
	if m.Type == MsgRoute {
		return nil
	}
	ids := []ident.Peer{m.From}
	if fieldsOf[m.Type]&fOrigin != 0 {
		ids = append(ids, m.Origin)
	}
	if m.Type != MsgHeartbeat {
		for _, id := range m.Peers {
			if id != (ident.Peer{}) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// attachRecords adds to an outgoing message the records of the IDs it
// names: its own, Origin's, the listed peers' (a heartbeat's list only
// when it changed since the last one to that neighbour).
func (n *Node) attachRecords(m *Message) {
	if !n.admitted() || m.Type == MsgRoute {
		return
	}
	seen := map[ident.Peer]bool{}
	add := func(id ident.Peer) {
		if id == (ident.Peer{}) || seen[id] || len(m.Records) >= MaxRecords {
			return
		}
		seen[id] = true
		if id == n.id {
			m.Records = append(m.Records, n.cfg.Admission.Self)
			return
		}
		if r := n.recs.byID[id]; r != nil {
			m.Records = append(m.Records, r.tok)
			return
		}
		n.stats.MissingRecords++ // the receiver will refuse this message
	}
	add(n.id)
	if fieldsOf[m.Type]&fOrigin != 0 {
		add(m.Origin)
	}
	if m.Type == MsgHeartbeat {
		p := n.find(m.To)
		if h := listHash(m.Peers); p == nil || p.listSent == h {
			return
		} else {
			p.listSent = h
		}
	}
	for _, id := range m.Peers {
		add(id)
	}
}

// coordOf is coordsFor for one space, for IDs Step has checked.
func (n *Node) coordOf(id ident.Peer, space int) Coord {
	cs, ok := n.coordsFor(id)
	if !ok {
		return Coordinate(id, space) // unreachable: Step refused the message
	}
	return cs[space]
}

// RenewRecord replaces the node's own token with a renewal of it
// (admission.Issuer.Renew): the same peer and salt, so the same place, of
// a later epoch. Its messages then carry the new record, which newcomers
// of the later epoch accept, and it accepts records from one epoch before
// the new one. A token for another place is refused: a node cannot move.
func (n *Node) RenewRecord(tok admission.Token) error {
	a := n.cfg.Admission
	if a == nil {
		return fmt.Errorf("%w: renewal without admitted placement", ErrInvalidConfig)
	}
	if tok.Peer() != n.id || tok.Salt != a.Self.Salt || tok.Epoch < a.Self.Epoch {
		return fmt.Errorf("%w: renewal for peer %v, epoch %d: not this node's place or older than epoch %d", ErrBadRecord, tok.Peer(), tok.Epoch, a.Self.Epoch)
	}
	renewed := *a
	renewed.Self = tok
	if err := admission.VerifyFor(&tok, n.id, renewed.policy()); err != nil {
		return fmt.Errorf("%w: %w", ErrBadRecord, err)
	}
	n.cfg.Admission = &renewed
	return nil
}
