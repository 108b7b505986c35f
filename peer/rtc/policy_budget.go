package rtc

import (
	"fmt"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Offer budgets. Answering an offer costs a peer connection and an ICE
// gathering that runs for seconds, before anything is known of the peer
// but its signature (IDs are free to make). So besides MaxLinks, the
// offers being answered (links that are neither ours nor open yet) are
// bounded in all (MaxPendingOffers) and per origin (MaxOffersPerOrigin):
// the neighbour that relayed the offer's last hop, or the signalling
// server (the zero peer). A flood through one neighbour then uses at most
// its share, and the other neighbours' offers still get through.

// pendingOffers counts the links answering an offer, in all and from
// origin.
func (p *policy) pendingOffers(origin ident.Peer) (all, fromOrigin int) {
	for _, l := range p.links {
		if l.initiator || l.open {
			continue
		}
		all++
		if l.origin == origin {
			fromOrigin++
		}
	}
	return all, fromOrigin
}

// offerBudget refuses an offer from origin over the budgets
// (ErrCapacity).
func (p *policy) offerBudget(origin ident.Peer) error {
	all, mine := p.pendingOffers(origin)
	switch {
	case p.cfg.MaxPendingOffers > 0 && all >= p.cfg.MaxPendingOffers:
		p.overQuota++
		return fmt.Errorf("%w: %d offers being answered, the most at once", ErrCapacity, all)
	case p.cfg.MaxOffersPerOrigin > 0 && mine >= p.cfg.MaxOffersPerOrigin:
		p.overQuota++
		return fmt.Errorf("%w: %d offers being answered from %v, the most per origin", ErrCapacity, mine, originName(origin))
	}
	return nil
}

func originName(origin ident.Peer) string {
	if origin == (ident.Peer{}) {
		return "the signalling server"
	}
	return origin.String()
}
