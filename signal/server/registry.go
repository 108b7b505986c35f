package server

import (
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"time"

	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// register admits a verified hello: it picks the contacts, opens the
// bootstrap window and returns the welcome, or a refusal code and text.
// A peer registering again replaces its older connection.
func (s *Server) register(sess *session, h *signal.Hello) (*signal.Welcome, signal.Code, string) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining {
		return nil, signal.CodeShutdown, "server shutting down"
	}
	ts := s.tasks[h.Task]
	if ts == nil {
		return nil, signal.CodeUnknownTask, fmt.Sprintf("task %v is not hosted here", h.Task)
	}
	old := s.peers[h.ID]
	total := len(s.peers)
	inTask, watching := ts.counts()
	if old != nil {
		total--
		switch {
		case old.task != ts:
		case old.observer:
			watching--
		default:
			inTask--
		}
	}
	if total >= s.cfg.MaxPeers {
		return nil, signal.CodeServerFull, fmt.Sprintf("server has %d peers", total)
	}
	if h.Observer && watching >= MaxObservers {
		return nil, signal.CodeTaskFull, fmt.Sprintf("task %v has %d observers", h.Task, watching)
	}
	if !h.Observer && inTask >= ts.spec.MaxPeers {
		return nil, signal.CodeTaskFull, fmt.Sprintf("task %v has %d peers", h.Task, inTask)
	}
	if code, text := s.addrAllows(ts, sess, old); code != 0 {
		return nil, code, text
	}
	token, code, text := s.admit.admit(sess.ip, h, ts.spec, now)
	if code != 0 {
		return nil, code, text
	}
	if old != nil {
		delete(s.peers, h.ID)
		delete(old.task.peers, h.ID)
		if old.countedPeer {
			old.task.addrs.add(old.addr, -1)
			old.countedPeer = false
		}
		s.counters.refuse(signal.CodeReplaced)
		go old.closeWith(signal.CodeReplaced, "the peer registered again on another connection")
	}
	contacts := pickContacts(ts, h.ID, s.cfg.Contacts)
	sess.id, sess.task, sess.contacts, sess.registered = h.ID, ts, contacts, true
	sess.pub, sess.registeredAt = slices.Clone(h.PublicKey), s.now() // s.now: the summaries' clock (progress.go)
	sess.observer = h.Observer
	if len(contacts) > 0 {
		sess.windowEnd = now.Add(s.cfg.BootstrapTimeout)
	} else {
		sess.established = true // the task's first peer: nobody to connect to
	}
	s.handshakes--
	s.pending.add(sess.addr, -1)
	ts.addrs.add(sess.addr, 1)
	sess.countedPeer = true
	s.peers[h.ID] = sess
	ts.peers[h.ID] = sess
	s.counters.registrations.Add(1)
	return &signal.Welcome{
		Contacts:     contacts,
		ICEServers:   s.iceServers(h.ID, sess.host, now),
		Task:         ts.spec,
		BootstrapMS:  int(s.cfg.BootstrapTimeout / time.Millisecond),
		Token:        token,
		AdmissionKey: s.admit.issuer.PublicKey(),
	}, 0, ""
}

// pickContacts returns up to k random peers of the task other than self,
// established ones (connected to the overlay, as their contacts
// confirmed: claims.go) first. Called with mu held.
func pickContacts(ts *taskState, self ident.Peer, k int) []ident.Peer {
	var established, others []ident.Peer
	for id, p := range ts.peers {
		switch {
		case id == self, p.observer: // an observer runs no overlay: nobody can join through it
		case p.established:
			established = append(established, id)
		default:
			others = append(others, id)
		}
	}
	shuffle := func(ids []ident.Peer) {
		rand.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	}
	shuffle(established)
	shuffle(others)
	out := make([]ident.Peer, 0, k)
	out = append(out, established[:min(k, len(established))]...)
	return append(out, others[:min(k-len(out), len(others))]...)
}

// MaxObservers bounds the observers (signal.Hello.Observer) a task has
// at once: they are not counted against its max_peers, so they get a
// small bound of their own.
const MaxObservers = 8

// counts returns the task's peers and its observers. Called with mu held.
func (ts *taskState) counts() (peers, observers int) {
	for _, p := range ts.peers {
		if p.observer {
			observers++
		}
	}
	return len(ts.peers) - observers, observers
}

// peersOf is the task's peers, less its observers. Called with mu held.
func peersOf(ts *taskState) int {
	peers, _ := ts.counts()
	return peers
}

// bootstrapDone handles MsgConnected{peer} from sess: its claim of a
// first connection (closing its bootstrap window), its confirmation of a
// newcomer's claim, or both (claims.go). A claim counts only once the
// contact confirms it; a report that is neither a claim nor from one of
// the peer's contacts is refused.
func (s *Server) bootstrapDone(sess *session, peer ident.Peer) {
	out := s.connectedReport(sess, peer)
	switch {
	case !out.claim && !out.contactOf:
		s.counters.claimsRefused.Add(1)
		sess.refuse(signal.CodeNotAllowed, fmt.Sprintf("connected to %v: neither your contact nor a newcomer you are a contact of", peer), true)
		return
	case out.claim && !out.established && !out.alreadyEstablished:
		s.counters.claimsUnconfirmed.Add(1)
		s.logf("signal server: peer %v claims a connection to %v, which has not confirmed it (yet); not handed out first unless it does", sess.id, peer)
	case out.claim && out.windowWasOpen:
		s.logf("signal server: peer %v connected to %v; bootstrap done", sess.id, peer)
	}
	if out.established || out.confirmedEstablished {
		s.counters.claimsConfirmed.Add(1)
	}
	if out.confirm {
		s.counters.confirmations.Add(1)
	}
}

// relay forwards r from a registered peer if the bootstrap rules allow
// it: between a new peer and one of its contacts, inside the new peer's
// window.
func (s *Server) relay(from *session, r *signal.Relay) {
	now := time.Now()
	s.mu.Lock()
	to := s.peers[r.To]
	allowed := from.mayRelay(now, r.To) || (to != nil && to.mayRelay(now, from.id))
	late := !allowed && to != nil && slices.Contains(to.contacts, from.id)
	s.mu.Unlock()
	switch {
	case late:
		// A contact answering a newcomer whose window has closed (the
		// newcomer claimed a connection, or its time ran out): refused
		// and counted, but no strike. A fake that offers and claims at
		// once would otherwise have its honest contacts struck, and
		// after MaxStrikes of them disconnected, for answering it.
		s.counters.refuse(signal.CodeNotAllowed)
		from.sendError(signal.CodeNotAllowed, fmt.Sprintf("relay to %v: its bootstrap window is closed", r.To))
		return
	case !allowed:
		from.refuse(signal.CodeNotAllowed, fmt.Sprintf("relay to %v: not a bootstrap contact, or the window is closed", r.To), true)
		return
	case to == nil || to.task != from.task:
		from.refuse(signal.CodeUnknownPeer, fmt.Sprintf("relay to %v: not connected", r.To), true)
		return
	}
	fwd := &signal.Message{Type: signal.MsgRelay, Relay: &signal.Relay{From: from.id, To: r.To, Kind: r.Kind, Data: r.Data}}
	if !to.send(fwd) {
		from.refuse(signal.CodeBusy, fmt.Sprintf("relay to %v: its queue is full", r.To), true)
		return
	}
	s.counters.relayed[r.Kind].Add(1)
}

// mayRelay reports whether p's bootstrap window is open at now and other
// is one of its contacts. Called with mu held.
func (p *session) mayRelay(now time.Time, other ident.Peer) bool {
	return now.Before(p.windowEnd) && slices.Contains(p.contacts, other)
}

// iceServers returns the configured ICE servers, with STUNPort this
// machine's STUN server by host (the name the peer reached it by; none
// if that is not a plain name or address), and, with TURN auth, a TURN
// server with credentials for peer.
func (s *Server) iceServers(peer ident.Peer, host string, now time.Time) []signal.ICEServer {
	out := append([]signal.ICEServer{}, s.cfg.ICEServers...)
	if s.cfg.STUNPort != 0 && host != "" {
		out = append(out, signal.ICEServer{URLs: []string{"stun:" + net.JoinHostPort(host, strconv.Itoa(s.cfg.STUNPort))}})
	}
	if t := s.cfg.TURN; t != nil && len(t.URLs) > 0 {
		user, pass := TURNCredentials(t.Secret, peer.Hex(), now.Add(t.TTL))
		out = append(out, signal.ICEServer{URLs: t.URLs, Username: user, Credential: pass})
	}
	return out
}
