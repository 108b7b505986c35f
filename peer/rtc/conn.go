package rtc

import (
	"crypto/ed25519"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/pion/webrtc/v4"

	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

type connState uint8

const (
	connSignalling connState = iota // offer/answer under way
	connOpen                        // data channel open
	connClosed                      // dropped; no longer in Manager.conns
)

// conn is one peer connection. Fields are guarded by Manager.mu except
// where noted.
type conn struct {
	peer      ident.Peer
	session   uint64 // the connection attempt's ID (the offer's)
	initiator bool
	viaServer bool       // signalled through the signalling server
	replaced  bool       // dropped for a crossing offer, or its signalling path closed: no back-off
	signalVia ident.Peer // the first hop our routed offer took (zero: none, or the server)
	started   time.Time  // when the attempt began
	strayed   time.Time  // when it stopped being a neighbour; zero while one
	state     connState
	pc        *webrtc.PeerConnection
	dc        *webrtc.DataChannel // set before state becomes connOpen; then constant
	pub       ed25519.PublicKey   // the peer's key, from its verified session

	queue     [][]byte                   // control frames waiting for the channel
	transfers []*outTransfer             // outgoing transfers waiting their turn
	recv      map[uint64]*inTransfer     // incoming transfers by ID
	results   map[uint64]chan ResultCode // outgoing attempts awaiting their result

	sendMu sync.Mutex    // orders writes on dc: the queue flush before later sends
	low    chan struct{} // cap 1: BufferedAmountLow fired
	wake   chan struct{} // cap 1: a transfer was queued
	done   chan struct{} // closed when the conn is dropped
}

type inTransfer struct {
	a    *assembly
	last time.Time // last progress
}

type outTransfer struct {
	handle uint64
	meta   []byte
	data   []byte
	fp     [32]byte
	task   [32]byte
	sum    [32]byte
}

// newConnLocked registers a connection to peer (m.mu held).
func (m *Manager) newConnLocked(peer ident.Peer, initiator bool, session uint64) *conn {
	c := &conn{
		peer: peer, session: session, initiator: initiator, started: time.Now(),
		recv: map[uint64]*inTransfer{}, results: map[uint64]chan ResultCode{},
		low: make(chan struct{}, 1), wake: make(chan struct{}, 1), done: make(chan struct{}),
	}
	if !m.neighbours[peer] {
		c.strayed = c.started
	}
	m.conns[peer] = c
	return c
}

// startLocked starts connecting to peer (m.mu held), or returns nil while
// backing off after a failed attempt.
func (m *Manager) startLocked(peer ident.Peer) *conn {
	if b, ok := m.backoff[peer]; ok && time.Now().Before(b.until) {
		return nil
	}
	c := m.newConnLocked(peer, true, newSessionID())
	c.viaServer = m.useServerLocked(peer)
	m.count(func(s *Stats) { s.ConnectsStarted++ })
	m.spawn(func() { m.dial(c) })
	return c
}

// newPC creates c's peer connection and installs the handlers.
func (m *Manager) newPC(c *conn) (*webrtc.PeerConnection, error) {
	m.mu.Lock()
	ice := m.ice // AttachSignal may replace it
	m.mu.Unlock()
	pc, err := m.api.NewPeerConnection(webrtc.Configuration{ICEServers: ice})
	if err != nil {
		return nil, fmt.Errorf("%w: new peer connection: %w", ErrUnreachable, err)
	}
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		if s == webrtc.PeerConnectionStateFailed || s == webrtc.PeerConnectionStateClosed {
			m.fail(c, "peer connection "+s.String())
		}
	})
	pc.OnDataChannel(func(dc *webrtc.DataChannel) { m.setupDC(c, dc) })
	m.mu.Lock()
	if c.state == connClosed {
		m.mu.Unlock()
		_ = pc.Close()
		return nil, fmt.Errorf("%w: abandoned", ErrUnreachable)
	}
	c.pc = pc
	m.mu.Unlock()
	return pc, nil
}

// setupDC installs the data channel handlers.
func (m *Manager) setupDC(c *conn, dc *webrtc.DataChannel) {
	dc.SetBufferedAmountLowThreshold(uint64(m.cfg.LowWater))
	dc.OnBufferedAmountLow(func() {
		select {
		case c.low <- struct{}{}:
		default:
		}
	})
	dc.OnClose(func() { m.fail(c, "data channel closed") })
	dc.OnMessage(func(msg webrtc.DataChannelMessage) {
		if msg.IsString {
			m.refused(c, fmt.Errorf("%w: text message", ErrMalformed))
			return
		}
		m.onMessage(c, msg.Data)
	})
	dc.OnOpen(func() { m.onOpen(c, dc) })
}

// localSDP creates the offer or answer, waits for ICE gathering to
// complete (every candidate in the SDP) and returns it.
func (m *Manager) localSDP(pc *webrtc.PeerConnection, offer bool) (string, error) {
	var d webrtc.SessionDescription
	var err error
	if offer {
		d, err = pc.CreateOffer(nil)
	} else {
		d, err = pc.CreateAnswer(nil)
	}
	if err != nil {
		return "", err
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(d); err != nil {
		return "", err
	}
	t := time.NewTimer(m.cfg.GatherTimeout)
	defer t.Stop()
	select {
	case <-gathered:
	case <-t.C: // send what has been gathered
	case <-m.ctx.Done():
		return "", ErrClosed
	}
	ld := pc.LocalDescription()
	if ld == nil {
		return "", fmt.Errorf("no local description")
	}
	return ld.SDP, nil
}

// dial runs the offering side of c.
func (m *Manager) dial(c *conn) {
	pc, err := m.newPC(c)
	if err != nil {
		m.fail(c, err.Error())
		return
	}
	ordered := true
	dc, err := pc.CreateDataChannel("peerlearn", &webrtc.DataChannelInit{Ordered: &ordered})
	if err != nil {
		m.fail(c, "create data channel: "+err.Error())
		return
	}
	m.setupDC(c, dc)
	sdp, err := m.localSDP(pc, true)
	if err != nil {
		m.fail(c, "offer: "+err.Error())
		return
	}
	body, err := EncodeSession(Session{Kind: SessionOffer, To: c.peer, ID: c.session, UnixMilli: time.Now().UnixMilli(), SDP: sdp}, m.cfg.Identity)
	if err == nil {
		var via ident.Peer
		via, err = m.sendSession(c.peer, SessionOffer, body, c.viaServer, nil)
		m.mu.Lock()
		c.signalVia = via
		m.mu.Unlock()
	}
	if err != nil {
		m.fail(c, "send offer: "+err.Error())
		return
	}
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
	now := time.Now()
	if age := now.Sub(time.UnixMilli(s.UnixMilli)); age > m.cfg.SessionMaxAge || age < -m.cfg.SessionMaxAge {
		refuse(fmt.Errorf("%w: session signed %v ago", ErrReplay, age.Round(time.Millisecond)))
		return
	}
	if s.Kind == SessionAnswer {
		m.onAnswer(s, refuse)
		return
	}
	key := sessionKey{s.From, s.ID}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	if _, dup := m.seen[key]; dup {
		m.mu.Unlock()
		refuse(fmt.Errorf("%w: offer %d seen before", ErrReplay, s.ID))
		return
	}
	m.seen[key] = now.Add(2 * m.cfg.SessionMaxAge)
	old := m.conns[s.From]
	var queue [][]byte
	var transfers []*outTransfer
	if old != nil {
		if old.initiator && old.state == connSignalling && m.self.Less(s.From) {
			// Both offered at once: the smaller ID's offer wins.
			m.mu.Unlock()
			m.logf("offer from %v crossed ours: ours wins", s.From)
			return
		}
		// Their offer replaces what we have: our losing offer, or a
		// connection they have given up on.
		queue, transfers = old.queue, old.transfers
		old.queue, old.transfers, old.replaced = nil, nil, true
	}
	m.mu.Unlock()
	if old != nil {
		if pc := m.drop(old, "replaced by a new offer"); pc != nil {
			go pc.Close() //nolint:errcheck // closing a replaced connection
		}
	}
	m.mu.Lock()
	if m.closed || m.conns[s.From] != nil {
		m.mu.Unlock()
		return // lost a race with another offer from the same peer
	}
	c := m.newConnLocked(s.From, false, s.ID)
	c.pub, c.viaServer, c.queue, c.transfers = s.PublicKey, viaServer, queue, transfers
	if viaServer {
		m.relayed[s.From] = now.Add(m.window) // its window opened before its offer
	}
	m.mu.Unlock()
	m.count(func(st *Stats) { st.ConnectsStarted++; st.SessionsAccepted++ })
	back := slices.Clone(path)
	slices.Reverse(back)
	m.spawn(func() { m.answer(c, s, back) })
}

// answer runs the answering side of c.
func (m *Manager) answer(c *conn, offer Session, back []ident.Peer) {
	pc, err := m.newPC(c)
	if err != nil {
		m.fail(c, err.Error())
		return
	}
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer.SDP}); err != nil {
		m.fail(c, "set offer: "+err.Error())
		return
	}
	sdp, err := m.localSDP(pc, false)
	if err != nil {
		m.fail(c, "answer: "+err.Error())
		return
	}
	body, err := EncodeSession(Session{Kind: SessionAnswer, To: c.peer, ID: c.session, UnixMilli: time.Now().UnixMilli(), SDP: sdp}, m.cfg.Identity)
	if err == nil {
		_, err = m.sendSession(c.peer, SessionAnswer, body, c.viaServer, back)
	}
	if err != nil {
		m.fail(c, "send answer: "+err.Error())
	}
}

// onAnswer completes an offer of ours.
func (m *Manager) onAnswer(s Session, refuse func(error)) {
	m.mu.Lock()
	c := m.conns[s.From]
	if c == nil || !c.initiator || c.session != s.ID || c.state != connSignalling || c.pc == nil || c.pub != nil {
		m.mu.Unlock()
		refuse(fmt.Errorf("%w: answer %d matches no offer of ours", ErrReplay, s.ID))
		return
	}
	c.pub = s.PublicKey
	pc := c.pc
	m.mu.Unlock()
	m.count(func(st *Stats) { st.SessionsAccepted++ })
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: s.SDP}); err != nil {
		m.fail(c, "set answer: "+err.Error())
	}
}

// onOpen makes c usable: the queued frames go first.
func (m *Manager) onOpen(c *conn, dc *webrtc.DataChannel) {
	c.sendMu.Lock()
	m.mu.Lock()
	if c.state != connSignalling || c.pub == nil {
		m.mu.Unlock()
		c.sendMu.Unlock()
		return
	}
	c.dc, c.state = dc, connOpen
	queue := c.queue
	c.queue = nil
	delete(m.backoff, c.peer)
	delete(m.relayed, c.peer) // bootstrapped: the next connection is signalled through the overlay
	if c.viaServer && c.initiator && !m.windowShut && m.bootOpen == (ident.Peer{}) {
		m.bootOpen = c.peer
	}
	report, sig := m.bootstrapReportLocked()
	m.mu.Unlock()
	for _, f := range queue {
		if err := dc.Send(f); err != nil {
			m.logf("flush to %v: %v", c.peer, err)
			break
		}
		m.count(func(s *Stats) { s.FramesOut++; s.BytesOut += uint64(len(f)) })
	}
	c.sendMu.Unlock()
	m.count(func(s *Stats) { s.ConnectsOpened++ })
	m.logf("connected to %v in %v (%s)", c.peer, time.Since(c.started).Round(time.Millisecond), c.how())
	m.reportBootstrap(report, sig)
	m.spawn(func() { m.sendLoop(c) })
	m.emit(Event{Type: EventUp, Peer: c.peer})
}

func (c *conn) how() string {
	s := "answered"
	if c.initiator {
		s = "offered"
	}
	if c.viaServer {
		return s + " via the signalling server"
	}
	return s + " via the overlay"
}

// drop removes c (if still current) and marks it closed; it returns the
// peer connection for the caller to close (pion's Close may block).
func (m *Manager) drop(c *conn, why string) *webrtc.PeerConnection {
	m.mu.Lock()
	if c.state == connClosed {
		m.mu.Unlock()
		return nil
	}
	wasOpen := c.state == connOpen
	c.state = connClosed
	close(c.done)
	if c.viaServer {
		delete(m.relayed, c.peer) // a retry through the server may meet a closed window
	}
	report, sig := m.bootstrapReportLocked() // c was perhaps the last session under way
	var orphans []*conn                      // offers routed through c: their answers cannot come back
	if wasOpen {
		for _, o := range m.conns {
			if o.initiator && o.state == connSignalling && o.pub == nil && o.signalVia == c.peer {
				orphans = append(orphans, o)
			}
		}
	}
	if m.conns[c.peer] == c {
		delete(m.conns, c.peer)
	}
	if !wasOpen && c.initiator && !c.replaced {
		b := m.backoff[c.peer]
		b.wait = min(max(2*b.wait, m.cfg.RetryBackoff), m.cfg.MaxRetryBackoff)
		b.until = time.Now().Add(b.wait)
		m.backoff[c.peer] = b
	}
	transfers := c.transfers
	c.transfers, c.queue = nil, nil
	clear(c.recv)
	pc := c.pc
	m.mu.Unlock()
	m.reportBootstrap(report, sig)
	for _, o := range orphans {
		m.failUnanswered(o, "its offer went through "+c.peer.String()+", whose connection closed")
	}
	if wasOpen {
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

// fail drops c and closes its peer connection in the background.
func (m *Manager) fail(c *conn, why string) {
	if pc := m.drop(c, why); pc != nil {
		m.spawnClose(pc)
	}
}

// spawnClose closes pc on a goroutine Close waits for (unless the
// manager is already past waiting).
func (m *Manager) spawnClose(pc *webrtc.PeerConnection) {
	go pc.Close() //nolint:errcheck // best effort; the connection is gone for us
}

// bootstrapReportLocked reports whether to tell the signalling server now
// that this peer is connected (m.mu held), and marks the window shut if
// so. The server then closes the peer's relay window, refusing the relays
// of any session still under way through it (without saying which), so
// the report waits until a session through the server has opened and
// none is still under way.
func (m *Manager) bootstrapReportLocked() (ident.Peer, *signal.Client) {
	if m.closed || m.windowShut || m.sig == nil || m.bootOpen == (ident.Peer{}) {
		return ident.Peer{}, nil
	}
	for _, c := range m.conns {
		if c.viaServer && c.state == connSignalling {
			return ident.Peer{}, nil
		}
	}
	m.windowShut = true
	return m.bootOpen, m.sig
}

// reportBootstrap tells sig that this peer is connected to peer, unless
// sig is nil.
func (m *Manager) reportBootstrap(peer ident.Peer, sig *signal.Client) {
	if sig == nil {
		return
	}
	m.spawn(func() {
		if err := sig.Connected(m.ctx, [32]byte(peer)); err != nil {
			m.logf("telling the signalling server: %v", err)
		}
	})
}

// failUnanswered drops c, without back-off, if its offer is still
// unanswered (checked again: the answer may have come in meanwhile).
func (m *Manager) failUnanswered(c *conn, why string) {
	m.mu.Lock()
	if m.closed || c.state != connSignalling || c.pub != nil {
		m.mu.Unlock()
		return
	}
	c.replaced = true
	m.mu.Unlock()
	m.fail(c, why)
}
