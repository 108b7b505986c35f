package server

import (
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Contact claims. A new peer's MsgConnected{contact} claims its first
// WebRTC connection; a peer that believes it becomes established, and
// established peers are the contacts newcomers get first. A claim alone
// would let fresh identities push themselves to the front, and so would
// any evidence the claimant controls: relaying an answer proves nothing,
// since an honest contact answers any offer relayed to it, a dead one too.
//
// So a claim counts only when the contact itself reports, on its own
// authenticated session (the one its signed hello opened), that it has
// an open data channel with the claimant: the same message, MsgConnected
// naming the claimant, which a peer sends when a connection it answered
// through the server opens (peer/rtc). The contact must itself be
// established (else two fakes could vouch for each other), and the two
// reports may come in either order. A fake that sends a signed offer
// whose candidates are dead never gets an open channel, so its claim
// stays unconfirmed: it is never established and never handed out ahead
// of the established peers.
//
// MsgConnected{peer} from sess is read as both:
//   - sess's claim, when peer is one of sess's contacts (its bootstrap
//     window closes, as before);
//   - sess's confirmation of peer's claim, when sess is one of peer's
//     contacts and is established (a contact not established yet
//     reports too, and is not believed).
// A report that is neither a claim nor from one of peer's contacts is
// refused (not-allowed). Per session at most
// signal.MaxContacts claims and confirmations are kept.

// connectedReport handles MsgConnected{peer} from sess (see above).
// It returns what it did, for the caller's counters and log.
func (s *Server) connectedReport(sess *session, peer ident.Peer) reportOutcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out reportOutcome
	if slices.Contains(sess.contacts, peer) {
		out.claim = true
		out.windowWasOpen = !sess.windowEnd.IsZero()
		sess.windowEnd = time.Time{}
		if !slices.Contains(sess.claimed, peer) {
			sess.claimed = append(sess.claimed, peer) // at most len(contacts)
		}
		if !sess.established && slices.Contains(sess.confirmedBy, peer) {
			sess.established, out.established = true, true
		}
		out.alreadyEstablished = sess.established && !out.established
	}
	other := s.peers[peer]
	out.contactOf = other != nil && other != sess && other.task == sess.task && slices.Contains(other.contacts, sess.id)
	if out.contactOf && sess.established {
		out.confirm = true
		if !slices.Contains(other.confirmedBy, sess.id) {
			other.confirmedBy = append(other.confirmedBy, sess.id) // at most len(contacts)
		}
		if !other.established && slices.Contains(other.claimed, sess.id) {
			other.established, out.confirmedEstablished = true, true
		}
	}
	return out
}

// reportOutcome is what connectedReport did.
type reportOutcome struct {
	claim                bool // sess claimed a connection to one of its contacts
	windowWasOpen        bool // ... and that closed its bootstrap window
	established          bool // ... already confirmed: sess is established now
	alreadyEstablished   bool // ... sess was established before
	contactOf            bool // sess is one of peer's contacts (a report, confirming if sess is established)
	confirm              bool // sess confirmed the claim of a newcomer it is a contact of
	confirmedEstablished bool // ... whose claim had come: that peer is established now
}
