package rtc

import (
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Denials: the application's verdict that a peer is unwanted (netpeer's
// learner: a repeat offender by its model reputation). A denied peer is
// treated like a banned one (policy_strikes.go) until the denial ends:
// its link is dropped (causeDenied), its offers are refused (ErrBanned)
// and no connection to it is started, so the overlay's attempts to reach
// it fail until then. Denials share the bans' memory, bounded and
// expired on Tick like it; a denial never shortens a ban already there.

// Deny refuses peer until until, dropping its link now if it has one.
// It reports whether the denial took effect (until after now, not self).
func (p *policy) Deny(peer ident.Peer, until time.Time, why string, now time.Time) bool {
	if peer == p.self || !until.After(now) {
		return false
	}
	if old, ok := p.bans[peer]; ok && old.After(until) {
		until = old
	}
	remember(p.bans, peer, until, p.cfg.Remember, func(t time.Time) time.Time { return t })
	p.denials++
	if l := p.links[peer]; l != nil {
		p.drop(l, causeDenied, why, now)
	}
	return true
}
