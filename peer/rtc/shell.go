package rtc

import (
	"fmt"
	"time"

	"github.com/pion/webrtc/v4"

	"github.com/peerlearn/peerlearn/types/ident"
)

// The shell's side of the policy: it reports what happened (under m.mu),
// takes the policy's actions and carries them out (outside m.mu), and
// feeds it the clock.

// connLocked returns the connection of peer's current link (m.mu held).
func (m *Manager) connLocked(peer ident.Peer) *conn {
	if l := m.core.current(peer); l != nil {
		return m.conns[l.id]
	}
	return nil
}

// startLocked starts connecting to peer (m.mu held), or says why the
// policy will not.
func (m *Manager) startLocked(peer ident.Peer) (*conn, error) {
	l, err := m.core.Connect(peer, newSessionID(), m.now())
	if err != nil {
		return nil, err
	}
	c := m.newConnLocked(l)
	m.count(func(s *Stats) { s.ConnectsStarted++ })
	m.spawn(func() { m.dial(c) })
	return c, nil
}

// newConnLocked makes the connection of link l (m.mu held).
func (m *Manager) newConnLocked(l *link) *conn {
	c := &conn{
		peer: l.peer, link: l.id, session: l.session, initiator: l.initiator, viaServer: l.viaServer,
		started: l.started, recv: map[uint64]*inTransfer{}, results: map[uint64]chan ResultCode{},
		low: make(chan struct{}, 1), wake: make(chan struct{}, 1), done: make(chan struct{}),
	}
	m.conns[l.id] = c
	return c
}

// step feeds one input to the policy: f runs under m.mu with the clock's
// reading, then the actions the policy queued are carried out (outside
// m.mu). Every input goes this way, so no decision waits for a later one.
func (m *Manager) step(f func(p *policy, now time.Time)) {
	m.mu.Lock()
	f(m.core, m.now())
	acts := m.core.Ready()
	m.mu.Unlock()
	m.execute(acts)
}

// fail reports that c failed or closed; the policy drops its link.
func (m *Manager) fail(c *conn, why string) {
	m.step(func(p *policy, now time.Time) { p.Drop(c.peer, c.link, why, now) })
}

// execute carries out the policy's actions.
func (m *Manager) execute(acts []action) {
	for _, a := range acts {
		switch a.kind {
		case actClose:
			if pc := m.teardown(a); pc != nil {
				go pc.Close() //nolint:errcheck // best effort; the connection is gone for us
			}
		case actReport:
			m.mu.Lock()
			sig := m.sig
			m.mu.Unlock()
			if sig == nil {
				continue
			}
			m.spawn(func() {
				if err := sig.Connected(m.ctx, [32]byte(a.peer)); err != nil {
					m.logf("telling the signalling server: %v", err)
				}
			})
		}
	}
}

// teardown ends the connection of a dropped link: its transfers fail,
// EventDown reports it if it was open. It returns the peer connection
// for the caller to close (pion's Close may block).
func (m *Manager) teardown(a action) *webrtc.PeerConnection {
	m.mu.Lock()
	c := m.conns[a.link]
	if c == nil {
		m.mu.Unlock()
		return nil
	}
	delete(m.conns, a.link)
	c.closed = true
	close(c.done)
	transfers := c.transfers
	c.transfers, c.queue = nil, nil
	for _, in := range c.recv {
		m.release(c.peer, in.a)
	}
	clear(c.recv)
	pc, offered := c.pc, c.offered
	m.mu.Unlock()
	if a.cause == causeTimeout && !a.wasOpen {
		m.timedOutCause(c, pc, offered)
	}
	why := a.cause.String()
	if a.why != "" {
		why = a.why
	}
	if a.cause == causeStray {
		m.count(func(s *Stats) { s.StraysClosed++ })
		m.logf("closing %v: not a neighbour for %v", c.peer, m.cfg.Grace)
	}
	if a.wasOpen {
		m.count(func(s *Stats) { s.ConnectsClosed++ })
		m.logf("connection to %v closed: %s", c.peer, why)
		m.emit(Event{Type: EventDown, Peer: c.peer})
	} else {
		m.count(func(s *Stats) { s.ConnectsFailed++ })
		m.logf("connection to %v failed: %s (%s)", c.peer, why, c.how())
	}
	for _, t := range transfers {
		m.count(func(s *Stats) { s.TransfersFailedOut++ })
		m.emit(Event{Type: EventSendFailed, Peer: c.peer, Handle: t.handle, Err: fmt.Errorf("%w: %s", ErrUnreachable, why)})
	}
	return pc
}

// ticker feeds the clock to tick until Close.
func (m *Manager) ticker() {
	t := time.NewTicker(tickPeriod)
	defer t.Stop()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-t.C:
			m.tick(m.now())
		}
	}
}

// tick applies the policy's timeouts at now and drops the incoming
// transfers that made no progress for TransferTimeout.
func (m *Manager) tick(now time.Time) {
	type stalled struct {
		c   *conn
		tid uint64
	}
	var stalls []stalled
	m.step(func(p *policy, _ time.Time) {
		p.Tick(now)
		for _, c := range m.conns {
			for tid, in := range c.recv {
				if now.Sub(in.last) > m.cfg.TransferTimeout {
					m.release(c.peer, in.a)
					delete(c.recv, tid)
					stalls = append(stalls, stalled{c, tid})
				}
			}
		}
	})
	for _, line := range m.refusals.flush(now) {
		m.logf("%s", line)
	}
	for _, s := range stalls {
		m.count(func(s *Stats) { s.TransfersFailedIn++ })
		m.logf("incoming transfer %d from %v stalled: dropped", s.tid, s.c.peer)
		m.result(s.c, s.tid, ResultTimeout)
	}
}
