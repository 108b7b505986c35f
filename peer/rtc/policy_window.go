package rtc

import (
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// window is this peer's bootstrap window: while it is open, sessions
// with the welcome's contacts go through the signalling server. The
// server relays only inside a newcomer's window and does not say which
// relay it refused, so the policy closes the window itself (actReport)
// once a session through the server has opened and none is still under
// way, and sessions with a peer whose own bootstrap offer came through
// the server go that way too until that peer's window has surely closed
// or a connection with it opened or failed.
type window struct {
	server   bool // a signalling client is attached
	contacts map[ident.Peer]bool
	shut     bool          // closed (reported to the server)
	bootOpen ident.Peer    // the first peer connected through the server (zero: none yet)
	ends     time.Time     // the window ends at the latest (welcome + its length)
	length   time.Duration // the server's bootstrap window
	relayed  map[ident.Peer]time.Time
}

func newWindow() window {
	return window{contacts: map[ident.Peer]bool{}, relayed: map[ident.Peer]time.Time{}}
}

// Attach opens a new bootstrap window: a signalling client whose welcome
// lists contacts and a window of length (zero: the server's maximum,
// maxLength). It reports whether this is a registration again (the peer
// was cut off): failed attempts from before say nothing now, so the
// back-offs are forgotten.
func (p *policy) Attach(contacts []ident.Peer, length time.Duration, now time.Time) (again bool) {
	w := &p.win
	again = w.server || w.bootOpen != (ident.Peer{}) || w.shut
	w.server, w.length, w.ends = true, length, now.Add(length)
	w.shut, w.bootOpen = false, ident.Peer{}
	clear(w.contacts)
	for _, id := range contacts {
		w.contacts[id] = true
	}
	if again {
		clear(p.backoff)
	}
	return again
}

// Detach reports that the signalling client went away.
func (p *policy) Detach() { p.win.server = false }

// UseServer reports whether sessions with peer go through the server.
func (p *policy) UseServer(peer ident.Peer, now time.Time) bool {
	w := &p.win
	return w.server && (now.Before(w.relayed[peer]) || w.contacts[peer] && !w.shut && now.Before(w.ends))
}

// relayedUntil remembers that peer offered through the server at now.
func (w *window) relayedUntil(peer ident.Peer, now time.Time, bound int) {
	remember(w.relayed, peer, now.Add(w.length), bound, func(t time.Time) time.Time { return t })
}

// opened notes link l opening.
func (w *window) opened(l *link) {
	delete(w.relayed, l.peer) // bootstrapped: the next connection is signalled through the overlay
	if l.viaServer && l.initiator && !w.shut && w.bootOpen == (ident.Peer{}) {
		w.bootOpen = l.peer
	}
}

// dropped notes link l ending.
func (w *window) dropped(l *link) {
	if l.viaServer {
		delete(w.relayed, l.peer) // a retry through the server may meet a closed window
	}
}

// maybeReport queues actReport, and shuts the window, when a session
// through the server has opened and none is still under way.
func (p *policy) maybeReport() {
	w := &p.win
	if p.closed || w.shut || !w.server || w.bootOpen == (ident.Peer{}) {
		return
	}
	for _, l := range p.links {
		if l.viaServer && !l.open {
			return
		}
	}
	w.shut = true
	p.actions = append(p.actions, action{kind: actReport, peer: w.bootOpen})
}

// maybeConfirm queues actReport for the peer of link l, just opened, if
// l answered that peer's offer relayed by the server: the server believes
// a newcomer's "connected" claim only when the contact reports the open
// channel too (signal/server/claims.go). An offer from one of our own
// contacts inside our own window is our bootstrap, whose report is
// maybeReport's.
func (p *policy) maybeConfirm(l *link) {
	w := &p.win
	if p.closed || !w.server || !l.viaServer || l.initiator || w.contacts[l.peer] && !w.shut {
		return
	}
	p.actions = append(p.actions, action{kind: actReport, peer: l.peer})
}
