package rtc

import (
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Deny closes the connection to peer, if any, and refuses it for d: its
// offers are refused and no connection to it is started (sends to it
// fail as unreachable) until d has passed. The caller decides who is
// unwanted (netpeer: a neighbour whose models the reputation gave up
// on); the denial lives in the policy's bounded ban memory. Counted in
// Stats.Denied.
func (m *Manager) Deny(peer ident.Peer, d time.Duration, why string) {
	m.step(func(p *policy, now time.Time) { p.Deny(peer, now.Add(d), why, now) })
}
