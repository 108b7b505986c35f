package rtc

import (
	"fmt"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Connection lifecycle: a link is started by Connect (we offer) or Offer
// (they do), becomes keyed when the peer's signed session is verified,
// opens on Opened, and ends in drop (which queues actClose).

// Connect starts a link to peer, our offer with the given session ID. It
// refuses (ErrUnreachable) while backing off after a failed attempt to
// peer, at MaxLinks, or if peer has a link already; ErrClosed once shut
// down.
func (p *policy) Connect(peer ident.Peer, session uint64, now time.Time) (*link, error) {
	switch {
	case p.closed:
		return nil, ErrClosed
	case p.links[peer] != nil:
		return nil, fmt.Errorf("%w: %v has a connection already", ErrUnreachable, peer)
	case p.Banned(peer, now):
		return nil, fmt.Errorf("%w: %w", ErrUnreachable, p.checkBanned(peer, now))
	case p.backingOff(peer, now):
		return nil, fmt.Errorf("%w: %v (backing off after a failed attempt)", ErrUnreachable, peer)
	case len(p.links) >= p.cfg.MaxLinks:
		return nil, fmt.Errorf("%w: %v (%d connections, the most at once)", ErrUnreachable, peer, len(p.links))
	}
	l := p.newLink(peer, true, session, now)
	l.viaServer = p.UseServer(peer, now)
	return l, nil
}

// OfferSent records the first hop our routed offer on link id took
// (zero: it went through the server).
func (p *policy) OfferSent(peer ident.Peer, id linkID, via ident.Peer) {
	if l := p.links[peer]; l != nil && l.id == id {
		l.signalVia = via
	}
}

// freshSession refuses a session signed longer than SessionMaxAge ago
// (or as far in the future).
func (p *policy) freshSession(unixMilli int64, now time.Time) error {
	if age := now.Sub(time.UnixMilli(unixMilli)); age > p.cfg.SessionMaxAge || age < -p.cfg.SessionMaxAge {
		return fmt.Errorf("%w: session signed %v ago", ErrReplay, age.Round(time.Millisecond))
	}
	return nil
}

// offerOutcome is what Offer decided.
type offerOutcome struct {
	accepted *link // the new link answering the offer; nil if ignored
	replaced linkID
}

// Offer handles a verified offer from peer from (signed at unixMilli,
// relayed by the signalling server if viaServer, else its last hop was
// the neighbour hop). It refuses stale and repeated offers (ErrReplay),
// offers from banned peers (ErrBanned) and offers over the budgets
// (ErrCapacity: MaxLinks, MaxPendingOffers, MaxOffersPerOrigin, and
// MaxServerOffers per sender through the server); when our
// own unanswered offer to from crossed it and our ID is the smaller,
// ours wins and it is ignored; else a new link answers it, replacing
// whatever link from had.
func (p *policy) Offer(from ident.Peer, session uint64, unixMilli int64, viaServer bool, hop ident.Peer, now time.Time) (offerOutcome, error) {
	if err := p.freshSession(unixMilli, now); err != nil {
		return offerOutcome{}, err
	}
	if p.closed {
		return offerOutcome{}, ErrClosed
	}
	if err := p.checkBanned(from, now); err != nil {
		return offerOutcome{}, err
	}
	if viaServer {
		hop = ident.Peer{}
	}
	key := sessionKey{from, session}
	if _, dup := p.seen[key]; dup {
		return offerOutcome{}, fmt.Errorf("%w: offer %d seen before", ErrReplay, session)
	}
	if viaServer {
		if err := p.serverOfferBudget(from, now); err != nil {
			return offerOutcome{}, err
		}
		p.evictServerOffer(from, now)
	}
	if err := p.offerBudget(hop); err != nil {
		return offerOutcome{}, err
	}
	remember(p.seen, key, now.Add(2*p.cfg.SessionMaxAge), p.cfg.Remember, func(t time.Time) time.Time { return t })
	var out offerOutcome
	old := p.links[from]
	if old == nil && len(p.links) >= p.cfg.MaxLinks {
		return out, fmt.Errorf("%w: offer from %v at %d connections", ErrCapacity, from, len(p.links))
	}
	if old != nil {
		if old.initiator && !old.open && p.self.Less(from) {
			return out, nil // both offered at once: the smaller ID's offer wins
		}
		// Their offer replaces what we have: our losing offer, or a
		// connection they have given up on.
		out.replaced = old.id
		p.drop(old, causeReplaced, "", now)
	}
	l := p.newLink(from, false, session, now)
	l.keyed, l.viaServer, l.origin = true, viaServer, hop
	if viaServer {
		p.win.relayedUntil(from, now, p.cfg.Remember) // its window opened before its offer
	}
	out.accepted = l
	return out, nil
}

// Answer handles a verified answer from peer from to our offer session.
// It returns the link it completes, or ErrReplay if it matches no
// unanswered offer of ours.
func (p *policy) Answer(from ident.Peer, session uint64, unixMilli int64, now time.Time) (*link, error) {
	if err := p.freshSession(unixMilli, now); err != nil {
		return nil, err
	}
	l := p.links[from]
	if l == nil || !l.initiator || l.session != session || l.open || l.keyed {
		return nil, fmt.Errorf("%w: answer %d matches no offer of ours", ErrReplay, session)
	}
	l.keyed = true
	return l, nil
}

// Opened reports that link id's data channel opened. It returns false
// if the link is no longer current or not keyed (the shell then ignores
// the channel).
func (p *policy) Opened(peer ident.Peer, id linkID, now time.Time) bool {
	l := p.links[peer]
	if l == nil || l.id != id || l.open || !l.keyed {
		return false
	}
	l.open = true
	delete(p.backoff, peer)
	p.win.opened(l)
	p.maybeReport()
	p.maybeConfirm(l)
	return true
}

// Drop reports that link id failed or closed in the shell (why says how).
func (p *policy) Drop(peer ident.Peer, id linkID, why string, now time.Time) {
	if l := p.links[peer]; l != nil && l.id == id {
		p.drop(l, causeShell, why, now)
	}
}

// Shutdown drops every link; the policy accepts no new ones.
func (p *policy) Shutdown(now time.Time) {
	p.closed = true
	for _, l := range p.sortedLinks() {
		if p.links[l.peer] == l {
			p.drop(l, causeShutdown, "", now)
		}
	}
	p.win.server = false
}

// drop forgets l and queues its actClose. An initiator that never opened
// backs off, unless it was replaced or orphaned (neither says the peer
// is unreachable). Our unanswered offers routed through l's peer lose
// their path (answers retrace offers) and are dropped with it.
func (p *policy) drop(l *link, cause closeCause, why string, now time.Time) {
	delete(p.links, l.peer)
	if r := p.replay[l.peer]; r != nil {
		r.idleSince = now
	}
	p.actions = append(p.actions, action{kind: actClose, link: l.id, peer: l.peer, wasOpen: l.open, cause: cause, why: why})
	if !l.open && l.initiator && cause != causeReplaced && cause != causeOrphaned && cause != causeShutdown {
		p.backOff(l.peer, now)
	}
	if !l.open && !l.initiator && l.viaServer && (cause == causeTimeout || cause == causeShell) {
		p.DeadOffer(l.peer, now) // answered through the server, and nothing ever opened
	}
	p.win.dropped(l)
	if l.open {
		for _, o := range p.sortedLinks() {
			if o.initiator && !o.open && !o.keyed && o.signalVia == l.peer {
				p.drop(o, causeOrphaned, "its offer went through "+l.peer.String()+", whose connection closed", now)
			}
		}
	}
	p.maybeReport() // l was perhaps the last session under way through the server
}

// SetNeighbours replaces the overlay's neighbour set: links to anyone
// else (but the kept peers, SetKept) are dropped Grace after they stopped
// being neighbours.
func (p *policy) SetNeighbours(ids []ident.Peer, now time.Time) {
	clear(p.neighbours)
	for _, id := range ids {
		p.neighbours[id] = true
	}
	p.restray(now)
}

// SetKept replaces the set of peers whose links are kept open like a
// neighbour's but who take no part in routing: never the next hop of
// someone else's signalling, nor a crumb's way back (a peer's observers,
// which are no overlay members: one placed close to a target by its ID
// must not be able to swallow the signalling towards it).
func (p *policy) SetKept(ids []ident.Peer, now time.Time) {
	clear(p.kept)
	for _, id := range ids {
		p.kept[id] = true
	}
	p.restray(now)
}

// restray marks the links that are neither neighbours' nor kept as
// strays (from now, unless already) and clears the others.
func (p *policy) restray(now time.Time) {
	for id, l := range p.links {
		switch {
		case p.neighbours[id] || p.kept[id]:
			l.strayed = time.Time{}
		case l.strayed.IsZero():
			l.strayed = now
		}
	}
}

// routes reports whether id may carry others' signalling: not a kept
// peer that is no neighbour.
func (p *policy) routes(id ident.Peer) bool { return !p.kept[id] || p.neighbours[id] }
