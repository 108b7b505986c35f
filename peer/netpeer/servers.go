package netpeer

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"time"

	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Several signalling servers for one task, for availability. The servers
// share no state: each knows only the peers registered with it and hands
// out those as contacts. A peer registers with one server at a time, the
// first that answers in a shuffled order (so a dead server listed first
// costs every newcomer one refused dial, not all of them the same wait,
// and the load spreads). One at a time because the transport relays its
// bootstrap sessions through one attached registration: an offer relayed
// by another server would be answered through the attached one, which
// does not know the offerer.
//
// Peers that bootstrapped through different servers form separate
// overlays at first. The bridge joins them: a member moves its
// registration to a random other server about every BridgeEvery and
// joins through the first contact of that server's welcome. That join is
// the overlay's merge probe (protocol/overlay merge.go) started by hand:
// if the contact is in the peer's own overlay the discoveries stop next
// to the peer, nothing comes back and the node is a member again on its
// next tick (its tables are full); if the contact is in another overlay
// the peer finds its place there and the claims, hints and repairs splice
// the rings. Moving (rather than staying registered with every server)
// also keeps each server's contact list a sample of the whole overlay,
// so newcomers through any server join the one overlay. The cost is one
// WebSocket handshake per peer per BridgeEvery at some server.

// servers lists the configured signalling servers, SignalURL first, each
// once.
func (c Config) servers() []string {
	var out []string
	seen := map[string]bool{}
	for _, u := range append([]string{c.SignalURL}, c.SignalURLs...) {
		if u != "" && !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}

// shuffled returns the servers in a random order.
func shuffled(urls []string, rng *rand.Rand) []string {
	out := append([]string(nil), urls...)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// dialEach registers with the first of urls that accepts, trying them in
// order with dial; it returns that server's URL, or the last error.
func dialEach(ctx context.Context, urls []string, dial func(context.Context, string) (*signal.Client, error), logf func(string, ...any)) (*signal.Client, string, error) {
	var err error
	for _, u := range urls {
		var c *signal.Client
		if c, err = dial(ctx, u); err == nil {
			return c, u, nil
		}
		if ctx.Err() != nil {
			break
		}
		if len(urls) > 1 {
			logf("signalling server %s: %v", u, err)
		}
	}
	return nil, "", err
}

// bridge is the periodic move to another server. Only Run's loop
// touches it.
type bridge struct {
	every   time.Duration // Config.BridgeEvery (0: off)
	rng     *rand.Rand
	next    time.Time // the next move (zero: not scheduled)
	pending bool      // a move is dialling
	done    chan moved
	count   int // moves that joined through the other server's contacts
	// BridgeWhenSplit's back-off: the moves since the last new failure
	// or the last move that changed the neighbours, the overlay's
	// Stats().Remembered when last looked at, and a digest of the
	// neighbour set at the last move.
	level      int
	misses     int // moves since then
	remembered uint64
	neighbours uint64
	// welcomed is how many contacts the latest registration's welcome
	// listed: peers of the task the server knew besides this one.
	welcomed int
}

// moved is the outcome of one move.
type moved = registration

// schedule draws the next move: every/2 to 3*every/2 from now, every
// doubled per back-off level.
func (b *bridge) schedule(now time.Time) {
	every := b.every
	if every <= math.MaxInt64>>(b.level+1) { // not past the clock's range
		every <<= b.level
	}
	b.next = now.Add(every/2 + time.Duration(b.rng.Int64N(int64(every))))
}

// moving schedules the move after the one starting now; when backOff
// (BridgeWhenSplit), a back-off level later once bridgeGraceMoves moves
// have changed nothing.
func (b *bridge) moving(now time.Time, backOff bool) {
	if backOff {
		b.misses++
		b.level = min(max(b.misses-bridgeGraceMoves, 0), maxBridgeBackoff)
	}
	b.schedule(now)
}

// bridgeGraceMoves: the first moves after a failure come every
// BridgeEvery before the back-off starts. One move may meet contacts on
// its own side only (the server's contacts are a random few), and a
// split can leave fragments that need several.
const bridgeGraceMoves = 3

// watchBridge starts a move when one is due: the peer is a member, not
// cut off (the rebootstrap handles that), and knows another server.
func (p *Peer) watchBridge(ctx context.Context, now time.Time) {
	b := &p.bridge
	others := p.otherServers()
	if b.every <= 0 || len(others) == 0 || b.pending || p.reboot.pending || !p.node.Joined() || p.cutOff() {
		return
	}
	if p.bridgesWhenSplit() && !p.splitSuspected(now) {
		return
	}
	if b.next.IsZero() {
		b.schedule(now)
	}
	if now.Before(b.next) {
		return
	}
	b.moving(now, p.bridgesWhenSplit())
	b.neighbours = neighbourDigest(p.node.Neighbors())
	p.startMove(ctx, others[b.rng.IntN(len(others))])
}

// startMove registers with the server at url in the background; the
// outcome comes to Run's loop on bridge.done (bridged).
func (p *Peer) startMove(ctx context.Context, url string) {
	b := &p.bridge
	b.pending = true
	id, task, cfg := p.cfg.Identity, p.cfg.Task, p.signalConfig()
	go func() {
		c, err := signal.Dial(ctx, url, id, task, cfg)
		select {
		case b.done <- moved{c, err, url}:
		case <-ctx.Done():
			if c != nil {
				c.Close()
			}
		}
	}()
}

// bridgesWhenSplit reports whether moves follow BridgeWhenSplit: one
// server, in that mode. With several servers a peer always moves, since
// peers bootstrapped through different servers are split from the start.
func (p *Peer) bridgesWhenSplit() bool {
	return len(p.cfg.servers()) == 1 && p.cfg.BridgeAlone == BridgeWhenSplit
}

// splitSuspected reports whether the overlay remembers failed neighbours
// that are not back and that no connection has reached since, which may
// be alive across a healed cut, or whether the peer sits on an islet.
func (p *Peer) splitSuspected(now time.Time) bool {
	nbrs := p.node.Neighbors()
	notBack := p.node.Remembering()
	if islet(len(nbrs), p.bridge.welcomed) {
		notBack++
	}
	return p.bridge.suspectSplit(p.node.Stats().Remembered, notBack, neighbourDigest(nbrs), now)
}

// islet reports whether a peer with this many neighbours sits on an
// overlay of two while its welcome named at least two other peers: on
// FedLay's rings three or more peers give every one at least two
// distinct neighbours, so a single neighbour means the pair formed apart
// (two newcomers whose contacts did not answer, under load, joined each
// other) and nothing else tells them, since no neighbour of theirs ever
// failed. A registration's fresh contacts join it to the rest.
func islet(neighbours, welcomed int) bool { return neighbours == 1 && welcomed >= 2 }

// neighbourDigest is an order-independent digest of a neighbour set.
func neighbourDigest(ids []ident.Peer) uint64 {
	var d uint64
	for _, id := range ids {
		d += binary.LittleEndian.Uint64(id[:8]) // IDs are hashes: their bits are uniform
	}
	return d
}

// suspectSplit is splitSuspected's decision, given the overlay's count of
// failures remembered so far and of those not back, and the digest of
// the neighbour set: a failure seen since the last look, or neighbours
// changed since the last move (it found something: keep looking), start
// the back-off over, with a move due about every BridgeEvery from now;
// none not back ends it.
func (b *bridge) suspectSplit(remembered uint64, notBack int, neighbours uint64, now time.Time) bool {
	if remembered != b.remembered || b.level > 0 && neighbours != b.neighbours {
		b.remembered, b.neighbours, b.level, b.misses = remembered, neighbours, 0, 0
		b.schedule(now)
	}
	if notBack == 0 {
		b.level, b.misses, b.next = 0, 0, time.Time{}
		return false
	}
	return true
}

// otherServers lists the servers other than the current registration's;
// with one server, that server unless BridgeNever (a fresh registration
// there is what heals a long partition: see Config.BridgeAlone).
func (p *Peer) otherServers() []string {
	all := p.cfg.servers()
	if len(all) == 1 && p.cfg.BridgeAlone != BridgeNever {
		return all
	}
	var out []string
	for _, u := range all {
		if u != p.server {
			out = append(out, u)
		}
	}
	return out
}

// bridged takes a move's outcome: with contacts, the new registration
// replaces the old one and the node joins through them; without (the
// server is down, or nobody is registered there) the peer stays where it
// is.
func (p *Peer) bridged(m moved) {
	b := &p.bridge
	b.pending = false
	if m.err != nil {
		p.logf("moving to signalling server %s failed: %v", m.url, m.err)
		return
	}
	p.checkToken(m.client) // a renewal (admission.go) counts even if the peer stays
	w := m.client.Welcome()
	p.bridge.welcomed = len(w.Contacts)
	if len(w.Contacts) == 0 || p.node.Left() {
		go m.client.Close() // Close may wait seconds for the server
		p.logf("signalling server %s has no other peer of the task: staying with %s", m.url, p.server)
		return
	}
	old := p.client
	p.client, p.server = m.client, m.url
	p.mgr.AttachSignal(m.client)
	if old != nil {
		go old.Close()
	}
	b.count++
	contacts := rotateContacts(w.Contacts, b.count-1)
	p.logf("moved to signalling server %s: joining through %v (%d contacts)", m.url, contacts[0], len(contacts))
	if err := p.joinThrough(contacts); err != nil {
		p.logf("join: %v", err)
	}
}
