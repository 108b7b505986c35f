package rtc

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/pion/webrtc/v4"

	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// AttachSignal uses the signalling client for the first connections: its
// welcome's contacts are offered through the server (while this peer's
// bootstrap window is open) and offers relayed by the server are answered
// through it. The manager reads the client's Events until it closes (the
// server may go away: connections signalled through the overlay do not
// need it). Call it before sending to a contact. A peer that registers
// again (cut off from the overlay, it needs a new bootstrap) attaches the
// new client: its welcome's contacts and window replace the old ones.
func (m *Manager) AttachSignal(c *signal.Client) {
	w := c.Welcome()
	length := time.Duration(w.BootstrapMS) * time.Millisecond
	if w.BootstrapMS <= 0 { // no limit given: the server's default
		length = signal.MaxBootstrapMS * time.Millisecond
	}
	m.step(func(p *policy, now time.Time) {
		m.sig = c
		if again := p.Attach(w.Contacts, length, now); again && len(w.ICEServers) > 0 {
			// A new registration: the welcome may carry fresh TURN
			// credentials.
			m.ice = iceServers(w.ICEServers)
		}
	})
	m.spawn(func() {
		defer func() {
			m.step(func(p *policy, _ time.Time) {
				if m.sig == c { // not replaced by a newer registration
					m.sig = nil
					p.Detach()
				}
			})
			m.logf("signalling server connection ended: %v", c.Err())
		}()
		for {
			select {
			case <-m.ctx.Done():
				return
			case ev, ok := <-c.Events():
				if !ok {
					return
				}
				switch {
				case ev.Relay != nil:
					m.onRelay(ev.Relay)
				case ev.Refusal != nil:
					m.logf("signalling server refused: %v", ev.Refusal)
				}
			}
		}
	})
}

// onRelay handles a session relayed by the signalling server.
func (m *Manager) onRelay(r *signal.Relay) {
	b, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		m.count(func(s *Stats) { s.SessionsRefused++ })
		m.logf("relay from %v: %v", r.From, err)
		return
	}
	s, err := DecodeSession(b)
	if err == nil && s.From != r.From {
		err = fmt.Errorf("%w: relayed from %v, signed by %v", ErrBadSignature, r.From, s.From)
	}
	if err == nil && (r.Kind == signal.RelayOffer) != (s.Kind == SessionOffer) {
		err = fmt.Errorf("%w: relay kind %v carries session kind %d", ErrMalformed, r.Kind, s.Kind)
	}
	if err != nil {
		m.count(func(s *Stats) { s.SessionsRefused++ })
		m.logf("relay from %v: %v", r.From, err)
		return
	}
	m.onSession(s, nil, true)
}

// sendSession sends an encoded session to peer to: through the server
// when that is the bootstrap path, else routed (back along back if not
// empty).
// It returns the first hop of a routed session (zero through the server).
func (m *Manager) sendSession(to ident.Peer, kind SessionKind, body []byte, viaServer bool, back []ident.Peer) (ident.Peer, error) {
	m.mu.Lock()
	sig := m.sig
	m.mu.Unlock()
	if viaServer {
		if sig == nil {
			return ident.Peer{}, fmt.Errorf("%w: signalling server gone", ErrUnreachable)
		}
		rk := signal.RelayAnswer
		if kind == SessionOffer {
			rk = signal.RelayOffer
		}
		ctx, cancel := context.WithTimeout(m.ctx, m.cfg.GatherTimeout)
		defer cancel()
		return ident.Peer{}, sig.Send(ctx, to, rk, base64.StdEncoding.EncodeToString(body))
	}
	return m.forward(Envelope{Origin: m.self, Target: to, Back: back, Body: body}, ident.Peer{})
}

// onSession handles a verified session addressed to this peer. path is
// the route an offer took (its answer goes back along it); viaServer says
// it came through the signalling server.
func (m *Manager) onSession(s Session, path []ident.Peer, viaServer bool) {
	refuse := func(err error) {
		m.count(func(st *Stats) { st.SessionsRefused++ })
		m.errorStat(err)
		m.logf("refused a session from %v: %v", s.From, err)
	}
	if s.To != m.self {
		refuse(fmt.Errorf("%w: session for %v", ErrMisaddressed, s.To))
		return
	}
	if s.Kind == SessionAnswer {
		m.onAnswer(s, refuse)
		return
	}
	if viaServer && !workableCandidates(s.SDP) {
		m.step(func(p *policy, now time.Time) { p.DeadOffer(s.From, now) })
		refuse(fmt.Errorf("%w: dead offer: no candidate that could work", ErrMalformed))
		return
	}
	var c *conn
	var err error
	m.step(func(p *policy, now time.Time) {
		var out offerOutcome
		var hop ident.Peer // the neighbour that relayed it to us
		if len(path) > 0 {
			hop = path[len(path)-1]
		}
		if out, err = p.Offer(s.From, s.ID, s.UnixMilli, viaServer, hop, now); out.accepted == nil {
			return
		}
		c = m.newConnLocked(out.accepted)
		c.pub = s.PublicKey
		if old := m.conns[out.replaced]; old != nil {
			// What waited for the replaced connection goes on this one
			// (before the replaced one is torn down).
			c.queue, c.transfers = old.queue, old.transfers
			old.queue, old.transfers = nil, nil
		}
	})
	switch {
	case errors.Is(err, ErrClosed):
		return
	case err != nil:
		refuse(err)
		return
	case c == nil:
		m.logf("offer from %v crossed ours: ours wins", s.From)
		return
	}
	m.count(func(st *Stats) { st.ConnectsStarted++; st.SessionsAccepted++ })
	back := slices.Clone(path)
	slices.Reverse(back)
	m.spawn(func() { m.answer(c, s, back) })
}

// onAnswer completes an offer of ours.
func (m *Manager) onAnswer(s Session, refuse func(error)) {
	var c *conn
	var pc *webrtc.PeerConnection
	var err error
	m.step(func(p *policy, now time.Time) {
		if c = m.connLocked(s.From); c == nil || c.pc == nil {
			err = fmt.Errorf("%w: answer %d matches no offer of ours", ErrReplay, s.ID)
			return
		}
		if _, err = p.Answer(s.From, s.ID, s.UnixMilli, now); err == nil {
			c.pub, pc = s.PublicKey, c.pc
		}
	})
	if err != nil {
		refuse(err)
		return
	}
	m.count(func(st *Stats) { st.SessionsAccepted++ })
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: s.SDP}); err != nil {
		m.fail(c, "set answer: "+err.Error())
	}
}
