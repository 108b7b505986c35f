package rtc

import (
	"fmt"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Offers relayed by the signalling server. The server relays a
// newcomer's offers to its contacts, and every one answered costs the
// contact a peer connection and an ICE gathering. MaxOffersPerOrigin
// bounds those being answered at once (the server is one origin); besides,
// each sender gets at most MaxServerOffers answered within
// ServerOfferPeriod (a first try and a retry), and a dead offer costs
// its sender: an offer with no candidate that could work (refused on
// arrival, DeadOffer) or one whose connection did not open within
// ConnectTimeout (the link dropped unopened) is a strike against the
// sender and uses up its budget for the period. An honest newcomer whose
// first try fails has its other contacts, and the overlay afterwards.
//
// The server's share of the offer slots (MaxOffersPerOrigin) could still
// be held by fakes, each with one offer whose candidate looks workable
// but is dead, until ConnectTimeout: newcomers' offers meanwhile would be
// refused. So when the share is full, a new offer through the server
// (within its sender's budget) takes the slot of the oldest one being
// answered (causeEvicted, not charged: it may have been slow, not dead).
// An honest connection opens in a round trip or two, before several newer
// offers come; every offer that evicts costs its sender's budget, and
// every sender an admission at the server.
//
// What the contact learns in return is what the server needs to believe
// a newcomer's claim (signal/server/claims.go): when a connection it
// answered through the server opens, it reports that (actReport for the
// newcomer), on its own authenticated session.

// serverOffers is one sender's use of the budget.
type serverOffers struct {
	n     int       // offers answered (a dead one counts as the whole budget)
	until time.Time // the period's end
}

// serverOfferBudget refuses an offer relayed by the server from a sender
// over its budget (ErrCapacity), else counts it.
func (p *policy) serverOfferBudget(from ident.Peer, now time.Time) error {
	if p.cfg.MaxServerOffers < 1 {
		return nil
	}
	s := p.serverOffers[from]
	if !now.Before(s.until) {
		s = serverOffers{until: now.Add(p.cfg.ServerOfferPeriod)}
	}
	if s.n >= p.cfg.MaxServerOffers {
		p.overQuota++
		p.serverOffersRefused++
		return fmt.Errorf("%w: %v has had its %d offers through the signalling server answered (or sent a dead one) in the last %v",
			ErrCapacity, from, p.cfg.MaxServerOffers, p.cfg.ServerOfferPeriod)
	}
	s.n++
	remember(p.serverOffers, from, s, p.cfg.Remember, func(s serverOffers) time.Time { return s.until })
	return nil
}

// DeadOffer charges from for a dead offer relayed by the server: counted,
// its budget for the period used up, and a strike.
func (p *policy) DeadOffer(from ident.Peer, now time.Time) {
	p.deadOffers++
	if p.cfg.MaxServerOffers > 0 {
		s := p.serverOffers[from]
		if !now.Before(s.until) {
			s = serverOffers{until: now.Add(p.cfg.ServerOfferPeriod)}
		}
		s.n = p.cfg.MaxServerOffers
		remember(p.serverOffers, from, s, p.cfg.Remember, func(s serverOffers) time.Time { return s.until })
	}
	p.Strike(from, now)
}

// forgetServerOffers expires the budgets (Tick).
func (p *policy) forgetServerOffers(now time.Time) {
	forget(p.serverOffers, now, func(s serverOffers) time.Time { return s.until })
}

// evictServerOffer makes room for an offer through the server from from
// when the server's share of the offer slots is full: the oldest link
// answering an offer through the server, from another peer, is dropped.
func (p *policy) evictServerOffer(from ident.Peer, now time.Time) {
	if p.cfg.MaxOffersPerOrigin < 1 {
		return
	}
	if _, mine := p.pendingOffers(ident.Peer{}); mine < p.cfg.MaxOffersPerOrigin {
		return
	}
	var oldest *link
	for _, l := range p.sortedLinks() {
		if !l.initiator && !l.open && l.viaServer && l.origin == (ident.Peer{}) && l.peer != from {
			oldest = l
			break // sortedLinks is in the order they were made
		}
	}
	if oldest != nil {
		p.evicted++
		p.drop(oldest, causeEvicted, "", now)
	}
}
