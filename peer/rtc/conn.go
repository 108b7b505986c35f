package rtc

import (
	"crypto/ed25519"
	"fmt"
	"sync"
	"time"

	"github.com/pion/webrtc/v4"

	"github.com/peerlearn/peerlearn/types/ident"
)

// conn is the pion side of one link of the policy. Fields are guarded
// by Manager.mu except where noted.
type conn struct {
	peer      ident.Peer
	link      linkID
	session   uint64 // the connection attempt's ID (the offer's)
	initiator bool
	viaServer bool      // signalled through the signalling server
	started   time.Time // when the attempt began
	opened    time.Time // when its data channel opened (links.go)
	hosts     int       // remote host candidates known by address, counted at hostsAt (links.go)
	hostsAt   time.Time
	closed    bool // torn down: its link is gone
	pc        *webrtc.PeerConnection
	dc        *webrtc.DataChannel // set when the policy opened the link; then constant
	ctl       *webrtc.DataChannel // the unordered channel for overlay frames, once open (under sendMu)
	pub       ed25519.PublicKey   // the peer's key, from its verified session
	offered   ICEOffer            // the ICE servers pc was given (set with pc)
	diagnosed bool                // its failure was diagnosed (failure.go)

	queue     [][]byte                   // control frames waiting for the channel
	transfers []*outTransfer             // outgoing transfers waiting their turn
	recv      map[uint64]*inTransfer     // incoming transfers by ID
	announced map[uint64]*announced      // the peer's last announced transfers, open or closed (latechunk.go)
	results   map[uint64]chan ResultCode // outgoing attempts awaiting their result

	sendMu sync.Mutex    // orders writes on dc: the queue flush before later sends
	low    chan struct{} // cap 1: BufferedAmountLow fired
	wake   chan struct{} // cap 1: a transfer was queued
	done   chan struct{} // closed when the conn is torn down
}

type inTransfer struct {
	a    *assembly
	last time.Time // last progress
	seq  uint64    // opening order (Manager.inSeq): the oldest is superseded first
}

type outTransfer struct {
	handle uint64
	meta   []byte
	data   []byte
	fp     [32]byte
	task   [32]byte
	sum    [32]byte
}

// newPC creates c's peer connection and installs the handlers.
func (m *Manager) newPC(c *conn) (*webrtc.PeerConnection, error) {
	m.mu.Lock()
	ice := m.ice // AttachSignal may replace it
	m.mu.Unlock()
	pcfg := webrtc.Configuration{ICEServers: ice}
	if m.cfg.RelayOnly {
		pcfg.ICETransportPolicy = webrtc.ICETransportPolicyRelay
	}
	pc, err := m.api.NewPeerConnection(pcfg)
	if err != nil {
		return nil, fmt.Errorf("%w: new peer connection: %w", ErrUnreachable, err)
	}
	offered := offerOfServers(ice)
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		if s == webrtc.PeerConnectionStateFailed {
			m.failureCause(c, pc, offered)
		}
		if s == webrtc.PeerConnectionStateFailed || s == webrtc.PeerConnectionStateClosed {
			m.fail(c, "peer connection "+s.String())
		}
	})
	pc.OnDataChannel(func(dc *webrtc.DataChannel) { m.setupDC(c, dc) })
	if err := m.createCtl(c, pc); err != nil {
		_ = pc.Close()
		return nil, fmt.Errorf("%w: overlay data channel: %w", ErrUnreachable, err)
	}
	m.mu.Lock()
	if c.closed {
		m.mu.Unlock()
		_ = pc.Close()
		return nil, fmt.Errorf("%w: abandoned", ErrUnreachable)
	}
	c.pc, c.offered = pc, offered
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
	dc.OnMessage(m.onChannelMessage(c))
	dc.OnOpen(func() { m.onOpen(c, dc) })
}

// onChannelMessage is the message handler of c's channels.
func (m *Manager) onChannelMessage(c *conn) func(webrtc.DataChannelMessage) {
	return func(msg webrtc.DataChannelMessage) {
		// Back-pressure where pion gives none: in a browser its data
		// channel runs every message's handler on a goroutine of its own,
		// so a flood would pile up goroutines without bound. Past
		// maxInflight handlers at once a message is dropped and counted
		// (natively the handler runs on the connection's reader, one at
		// a time, and this never triggers).
		if !m.admit() {
			return
		}
		defer m.inflight.Add(-1)
		if msg.IsString {
			m.refused(c, fmt.Errorf("%w: text message", ErrMalformed))
			return
		}
		m.onMessage(c, msg.Data)
	}
}

// admit takes a message handler slot, or counts the message dropped.
func (m *Manager) admit() bool {
	if m.inflight.Add(1) > maxInflight {
		m.inflight.Add(-1)
		m.count(func(s *Stats) { s.InboundDropped++ })
		return false
	}
	return true
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
	return m.hookSDP(ld.SDP), nil
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
	body, err := EncodeSession(Session{Kind: SessionOffer, To: c.peer, ID: c.session, UnixMilli: m.now().UnixMilli(), SDP: sdp}, m.cfg.Identity)
	if err == nil {
		var via ident.Peer
		via, err = m.sendSession(c.peer, SessionOffer, body, c.viaServer, nil)
		m.step(func(p *policy, _ time.Time) { p.OfferSent(c.peer, c.link, via) })
	}
	if err != nil {
		m.fail(c, "send offer: "+err.Error())
		return
	}
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
	body, err := EncodeSession(Session{Kind: SessionAnswer, To: c.peer, ID: c.session, UnixMilli: m.now().UnixMilli(), SDP: sdp}, m.cfg.Identity)
	if err == nil {
		_, err = m.sendSession(c.peer, SessionAnswer, body, c.viaServer, back)
	}
	if err != nil {
		m.fail(c, "send answer: "+err.Error())
	}
}

// onOpen makes c usable: the queued frames go first.
func (m *Manager) onOpen(c *conn, dc *webrtc.DataChannel) {
	c.sendMu.Lock()
	m.mu.Lock()
	if c.closed || !m.core.Opened(c.peer, c.link, m.now()) {
		m.mu.Unlock()
		c.sendMu.Unlock()
		return
	}
	c.dc = dc
	c.opened = m.now()
	queue := c.queue
	c.queue = nil
	acts := m.core.Ready()
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
	m.logf("connected to %v in %v (%s)", c.peer, m.now().Sub(c.started).Round(time.Millisecond), c.how())
	m.execute(acts)
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
