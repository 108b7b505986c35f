package rtc

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/webrtc/v4"

	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// EventType says what an Event reports.
type EventType uint8

const (
	// EventMessage: a verified control message (Kind KindOverlay or
	// KindApp) from Peer; Data is its payload.
	EventMessage EventType = iota + 1
	// EventTransfer: a complete incoming transfer whose hash matched;
	// Manifest describes it and Data holds its bytes.
	EventTransfer
	// EventSent: the outgoing transfer Handle was received intact.
	EventSent
	// EventSendFailed: the outgoing transfer Handle failed for good
	// (after retries, or its connection closed); Err says why.
	EventSendFailed
	// EventUp: a connection to Peer opened.
	EventUp
	// EventDown: the open connection to Peer closed.
	EventDown
)

func (t EventType) String() string {
	switch t {
	case EventMessage:
		return "message"
	case EventTransfer:
		return "transfer"
	case EventSent:
		return "sent"
	case EventSendFailed:
		return "send-failed"
	case EventUp:
		return "up"
	case EventDown:
		return "down"
	}
	return fmt.Sprintf("EventType(%d)", uint8(t))
}

// Event is something the Manager reports on its Events channel.
type Event struct {
	Type     EventType
	Peer     ident.Peer
	Kind     Kind     // EventMessage
	Data     []byte   // EventMessage, EventTransfer: owned by the receiver of the event
	Manifest Manifest // EventTransfer
	Handle   uint64   // EventSent, EventSendFailed: SendTransfer's handle
	Err      error    // EventSendFailed
}

// Manager is one peer's set of WebRTC connections, one data channel per
// peer, and implements overlay.Transport. Send to a peer without a
// connection starts one: a signed SDP offer (every ICE candidate
// included) goes through the signalling server if the peer is a bootstrap
// contact and the bootstrap window is open, else hop by hop over the
// open connections towards the peer (see route.go); frames queue, bounded,
// until the channel opens. Connections to peers that are not overlay
// neighbours (SetNeighbors) are closed after Config.Grace.
//
// Concurrency: every method is safe for concurrent use and none blocks on
// the network (Close waits for the manager's goroutines). Everything the
// manager has to report arrives on Events, in order per peer, from the
// manager's and pion's goroutines; the channel must be drained (while it
// is full the connections' readers wait: back-pressure) until Close.
type Manager struct {
	cfg    Config
	self   ident.Peer
	api    *webrtc.API
	ice    []webrtc.ICEServer
	events chan Event
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	seq    atomic.Uint64 // last control sequence number used
	tids   atomic.Uint64 // last transfer ID used
	hooks  testHooks     // set by tests before any traffic

	smu   sync.Mutex
	stats Stats

	mu         sync.Mutex
	closed     bool
	conns      map[ident.Peer]*conn
	replay     map[ident.Peer]*replayWindow
	backoff    map[ident.Peer]backoff
	crumbs     map[ident.Peer]crumb
	seen       map[sessionKey]time.Time // offers accepted, until expiry
	neighbours map[ident.Peer]bool
	handles    uint64
	sig        *signal.Client
	contacts   map[ident.Peer]bool // bootstrap contacts: offers go through the server
	windowShut bool                // this peer's bootstrap window is closed
	bootOpen   ident.Peer          // the first peer connected through the server (zero: none yet)
	windowEnds time.Time           // ...or will be, at the latest (welcome + BootstrapMS)
	window     time.Duration       // the server's bootstrap window (BootstrapMS)
	// relayed: peers that offered to us through the server, until their
	// bootstrap window has surely closed. Our sessions with them go
	// through the server too, until then or until a connection with
	// them opens or fails: the server refuses relays outside the window
	// (without saying which), so later ones must go through the overlay.
	relayed map[ident.Peer]time.Time
}

// testHooks lets in-package tests break transfers on purpose.
type testHooks struct {
	// chunk may replace a chunk's bytes (corrupt) or stop the transfer
	// mid-way (the sender then stops sending and the attempt times out).
	chunk func(transfer, offset uint64, data []byte) (out []byte, stop bool)
}

type backoff struct {
	until time.Time
	wait  time.Duration
}

type crumb struct {
	via   ident.Peer
	until time.Time
}

type sessionKey struct {
	from ident.Peer
	id   uint64
}

// NewManager validates cfg and returns a manager with no connections.
// Attach a signalling client with AttachSignal for the first connection.
func NewManager(cfg Config) (*Manager, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{
		cfg: cfg, self: cfg.Identity.ID(), api: newAPI(cfg),
		events: make(chan Event, cfg.EventBuffer), ctx: ctx, cancel: cancel,
		conns: map[ident.Peer]*conn{}, replay: map[ident.Peer]*replayWindow{},
		backoff: map[ident.Peer]backoff{}, crumbs: map[ident.Peer]crumb{},
		seen: map[sessionKey]time.Time{}, neighbours: map[ident.Peer]bool{},
		contacts: map[ident.Peer]bool{}, relayed: map[ident.Peer]time.Time{},
	}
	m.ice = iceServers(cfg.ICEServers)
	now := uint64(time.Now().UnixNano())
	m.seq.Store(now) // a restarted peer (same key) starts above its old numbers
	m.tids.Store(now)
	m.spawn(m.janitor)
	return m, nil
}

// ID returns this peer's ID.
func (m *Manager) ID() ident.Peer { return m.self }

// Events returns the channel of events; see the Manager's concurrency
// notes. It is never closed; stop reading after Close.
func (m *Manager) Events() <-chan Event { return m.events }

// Stats returns a snapshot of the counters.
func (m *Manager) Stats() Stats {
	m.smu.Lock()
	s := m.stats
	m.smu.Unlock()
	m.mu.Lock()
	for _, c := range m.conns {
		if c.state == connOpen {
			s.Open++
		}
	}
	m.mu.Unlock()
	return s
}

func (m *Manager) count(f func(s *Stats)) {
	m.smu.Lock()
	f(&m.stats)
	m.smu.Unlock()
}

// Peers returns the peers with an open connection, sorted.
func (m *Manager) Peers() []ident.Peer {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []ident.Peer
	for id, c := range m.conns {
		if c.state == connOpen {
			out = append(out, id)
		}
	}
	slices.SortFunc(out, func(a, b ident.Peer) int {
		switch {
		case a.Less(b):
			return -1
		case b.Less(a):
			return 1
		}
		return 0
	})
	return out
}

// Send sends an overlay message (overlay.Transport): a signed KindOverlay
// frame. It never blocks; see the Manager's notes for peers without a
// connection.
func (m *Manager) Send(to ident.Peer, msg []byte) error {
	return m.SendControl(to, KindOverlay, msg)
}

// SendApp sends an application message (KindApp) to a peer.
func (m *Manager) SendApp(to ident.Peer, msg []byte) error {
	return m.SendControl(to, KindApp, msg)
}

// SendControl signs and sends a control frame of the given kind.
func (m *Manager) SendControl(to ident.Peer, kind Kind, payload []byte) error {
	if len(payload) > m.cfg.MaxControlPayload {
		return fmt.Errorf("%w: %v payload of %d bytes, limit %d", ErrTooLarge, kind, len(payload), m.cfg.MaxControlPayload)
	}
	frame, err := m.control(to, kind, payload)
	if err != nil {
		return err
	}
	return m.sendFrame(to, frame, true)
}

// control builds a signed frame with the next sequence number.
func (m *Manager) control(to ident.Peer, kind Kind, payload []byte) ([]byte, error) {
	if to == m.self || to == (ident.Peer{}) {
		return nil, fmt.Errorf("%w: send to %v", ErrMisaddressed, to)
	}
	return AppendControl(make([]byte, 0, controlOverhead+len(payload)), m.cfg.Identity, to, kind, m.seq.Add(1), payload)
}

// sendFrame sends frame to peer to on its open channel, or queues it
// while the connection is being set up, or (connect) starts one.
func (m *Manager) sendFrame(to ident.Peer, frame []byte, connect bool) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	c := m.conns[to]
	if c == nil {
		if !connect {
			m.mu.Unlock()
			return fmt.Errorf("%w: no connection to %v", ErrUnreachable, to)
		}
		c = m.startLocked(to)
		if c == nil {
			m.mu.Unlock()
			m.count(func(s *Stats) { s.Unreachable++ })
			return fmt.Errorf("%w: %v (backing off after a failed attempt)", ErrUnreachable, to)
		}
	}
	if c.state != connOpen {
		if len(c.queue) >= m.cfg.QueueFrames {
			m.mu.Unlock()
			m.count(func(s *Stats) { s.QueueDropped++ })
			return fmt.Errorf("%w: %d frames for %v", ErrQueueFull, m.cfg.QueueFrames, to)
		}
		c.queue = append(c.queue, frame)
		m.mu.Unlock()
		return nil
	}
	m.mu.Unlock()
	return m.write(c, frame, true)
}

// write sends one frame on c's open channel. A control frame (bounded)
// is dropped rather than queued behind MaxBuffered bytes.
func (m *Manager) write(c *conn, frame []byte, bounded bool) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	dc := c.dc
	if bounded && dc.BufferedAmount() > uint64(m.cfg.MaxBuffered) {
		m.count(func(s *Stats) { s.BufferDropped++ })
		return fmt.Errorf("%w: %d bytes buffered for %v", ErrQueueFull, dc.BufferedAmount(), c.peer)
	}
	if err := dc.Send(frame); err != nil {
		return fmt.Errorf("%w: %v: %w", ErrUnreachable, c.peer, err)
	}
	m.count(func(s *Stats) { s.FramesOut++; s.BytesOut += uint64(len(frame)) })
	return nil
}

// SendTransfer queues data (not copied: do not modify it until the
// transfer's EventSent or EventSendFailed) for peer to, with meta (at most
// MaxMeta bytes), the model's fingerprint and task hash. It returns the
// handle its events will carry.
func (m *Manager) SendTransfer(to ident.Peer, meta, data []byte, fingerprint, task [32]byte) (uint64, error) {
	if int64(len(data)) > m.cfg.MaxTransferBytes {
		return 0, fmt.Errorf("%w: transfer of %d bytes, limit %d", ErrTooLarge, len(data), m.cfg.MaxTransferBytes)
	}
	if len(meta) > MaxMeta {
		return 0, fmt.Errorf("%w: meta of %d bytes", ErrTooLarge, len(meta))
	}
	if to == m.self || to == (ident.Peer{}) {
		return 0, fmt.Errorf("%w: transfer to %v", ErrMisaddressed, to)
	}
	t := &outTransfer{meta: slices.Clone(meta), data: data, fp: fingerprint, task: task, sum: sha256.Sum256(data)}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, ErrClosed
	}
	c := m.conns[to]
	if c == nil {
		if c = m.startLocked(to); c == nil {
			m.count(func(s *Stats) { s.Unreachable++ })
			return 0, fmt.Errorf("%w: %v (backing off after a failed attempt)", ErrUnreachable, to)
		}
	}
	m.handles++
	t.handle = m.handles
	c.transfers = append(c.transfers, t)
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return t.handle, nil
}

// SetNeighbors tells the manager the overlay's current neighbour set:
// connections to anyone else are closed Config.Grace later.
func (m *Manager) SetNeighbors(ids []ident.Peer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.neighbours)
	for _, id := range ids {
		m.neighbours[id] = true
	}
	now := time.Now()
	for id, c := range m.conns {
		switch {
		case m.neighbours[id]:
			c.strayed = time.Time{}
		case c.strayed.IsZero():
			c.strayed = now
		}
	}
}

// NoteRoute records that messages originated by origin arrived through
// neighbour via (a Discover, Repair or Route the overlay forwarded):
// signalling for origin is routed back that way for Config.CrumbTTL. This
// is how a joining peer, connected only to its bootstrap contact, is
// reached by the peers that answer its discovery.
func (m *Manager) NoteRoute(origin, via ident.Peer) {
	if origin == via || origin == m.self || via == m.self {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.conns[via]; c != nil && c.state == connOpen {
		m.crumbs[origin] = crumb{via: via, until: time.Now().Add(m.cfg.CrumbTTL)}
	}
}

// Close closes every connection and stops the manager's goroutines.
// Events stops; it is not closed.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	conns := make([]*conn, 0, len(m.conns))
	for _, c := range m.conns {
		conns = append(conns, c)
	}
	m.mu.Unlock()
	m.cancel()
	var pcs []*webrtc.PeerConnection
	for _, c := range conns {
		if pc := m.drop(c, "manager closed"); pc != nil {
			pcs = append(pcs, pc)
		}
	}
	var wg sync.WaitGroup
	for _, pc := range pcs {
		wg.Add(1)
		go func() { defer wg.Done(); _ = pc.Close() }()
	}
	wg.Wait()
	m.wg.Wait()
	return nil
}

// spawn runs f on a goroutine that Close waits for.
func (m *Manager) spawn(f func()) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		f()
	}()
}

// emit reports ev, waiting while Events is full (until Close).
func (m *Manager) emit(ev Event) {
	select {
	case m.events <- ev:
	case <-m.ctx.Done():
	}
}

func (m *Manager) logf(format string, args ...any) {
	if m.cfg.Logf != nil {
		m.cfg.Logf("rtc %v: "+format, append([]any{m.self}, args...)...)
	}
}

// janitor enforces the timeouts: connections that do not open, strays
// past their grace, stalled incoming transfers, and expired memory.
func (m *Manager) janitor() {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		type stalled struct {
			c   *conn
			tid uint64
		}
		var slow, strays []*conn
		var stalls []stalled
		m.mu.Lock()
		for _, c := range m.conns {
			switch {
			case c.state != connOpen && now.Sub(c.started) > m.cfg.ConnectTimeout:
				slow = append(slow, c)
			case c.state == connOpen && !c.strayed.IsZero() && now.Sub(c.strayed) > m.cfg.Grace:
				strays = append(strays, c)
			}
			for tid, in := range c.recv {
				if now.Sub(in.last) > m.cfg.TransferTimeout {
					delete(c.recv, tid)
					stalls = append(stalls, stalled{c, tid})
				}
			}
		}
		for id, cr := range m.crumbs {
			if now.After(cr.until) {
				delete(m.crumbs, id)
			}
		}
		for k, until := range m.seen {
			if now.After(until) {
				delete(m.seen, k)
			}
		}
		for id, b := range m.backoff {
			if now.After(b.until.Add(m.cfg.MaxRetryBackoff)) {
				delete(m.backoff, id) // long quiet: start over at RetryBackoff
			}
		}
		m.mu.Unlock()
		for _, c := range slow {
			m.fail(c, "not open after ConnectTimeout")
		}
		for _, c := range strays {
			m.logf("closing %v: not a neighbour for %v", c.peer, m.cfg.Grace)
			m.count(func(s *Stats) { s.StraysClosed++ })
			m.fail(c, "not a neighbour")
		}
		for _, s := range stalls {
			m.count(func(s *Stats) { s.TransfersFailedIn++ })
			m.logf("incoming transfer %d from %v stalled: dropped", s.tid, s.c.peer)
			m.result(s.c, s.tid, ResultTimeout)
		}
	}
}

// result answers an incoming transfer.
func (m *Manager) result(c *conn, tid uint64, code ResultCode) {
	frame, err := m.control(c.peer, KindResult, MarshalResult(Result{Transfer: tid, Code: code}))
	if err == nil {
		err = m.sendFrame(c.peer, frame, false)
	}
	if err != nil {
		m.logf("result %v for transfer %d to %v: %v", code, tid, c.peer, err)
	}
}

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
	m.mu.Lock()
	again := m.sig != nil || m.bootOpen != (ident.Peer{}) || m.windowShut
	m.sig = c
	m.window = time.Duration(w.BootstrapMS) * time.Millisecond
	if w.BootstrapMS <= 0 { // no limit given: the server's default
		m.window = signal.MaxBootstrapMS * time.Millisecond
	}
	m.windowEnds = time.Now().Add(m.window)
	m.windowShut, m.bootOpen = false, ident.Peer{}
	clear(m.contacts)
	for _, id := range w.Contacts {
		m.contacts[id] = true
	}
	if again {
		// A new registration: attempts that failed while the peer was cut
		// off say nothing now, and the welcome may carry fresh TURN
		// credentials.
		clear(m.backoff)
		if len(w.ICEServers) > 0 {
			m.ice = iceServers(w.ICEServers)
		}
	}
	m.mu.Unlock()
	m.spawn(func() {
		defer func() {
			m.mu.Lock()
			if m.sig == c { // not replaced by a newer registration
				m.sig = nil
			}
			m.mu.Unlock()
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

// useServerLocked reports whether sessions for peer to go through the
// signalling server.
func (m *Manager) useServerLocked(to ident.Peer) bool {
	now := time.Now()
	return m.sig != nil && (now.Before(m.relayed[to]) || m.contacts[to] && !m.windowShut && now.Before(m.windowEnds))
}

// errorStat counts a refused frame by its error.
func (m *Manager) errorStat(err error) {
	m.count(func(s *Stats) {
		switch {
		case errors.Is(err, ErrBadSignature):
			s.BadSignature++
		case errors.Is(err, ErrReplay):
			s.Replayed++
		case errors.Is(err, ErrVersion):
			s.BadVersion++
		case errors.Is(err, ErrTooLarge):
			s.Oversized++
		case errors.Is(err, ErrUnknownKind):
			s.UnknownKind++
		default:
			s.Malformed++
		}
	})
}

// onMessage handles one data channel message from c's peer. On a native
// peer it runs on the connection's reader goroutine, so blocking here
// (Events full) holds back that peer only.
func (m *Manager) onMessage(c *conn, b []byte) {
	m.count(func(s *Stats) { s.FramesIn++; s.BytesIn += uint64(len(b)) })
	f, err := ParseFrame(b)
	if err != nil {
		m.refused(c, err)
		return
	}
	if f.Chunk != nil {
		m.onChunk(c, f.Chunk)
		return
	}
	ctl := f.Control
	m.mu.Lock()
	pub := c.pub
	m.mu.Unlock()
	if err := VerifyControl(ctl, pub, c.peer, m.self); err != nil {
		m.refused(c, err)
		return
	}
	if len(ctl.Payload) > m.cfg.MaxControlPayload {
		m.refused(c, fmt.Errorf("%w: %v payload of %d bytes", ErrTooLarge, ctl.Kind, len(ctl.Payload)))
		return
	}
	m.mu.Lock()
	w := m.replay[c.peer]
	if w == nil {
		w = &replayWindow{}
		m.replay[c.peer] = w
	}
	fresh := w.accept(ctl.Seq)
	m.mu.Unlock()
	if !fresh {
		m.refused(c, fmt.Errorf("%w: control frame %d", ErrReplay, ctl.Seq))
		return
	}
	switch ctl.Kind {
	case KindOverlay, KindApp:
		m.emit(Event{Type: EventMessage, Peer: c.peer, Kind: ctl.Kind, Data: ctl.Payload})
	case KindSignal:
		e, err := UnmarshalEnvelope(ctl.Payload)
		if err == nil && (len(e.Path) == 0 || e.Path[0] != e.Origin || e.Path[len(e.Path)-1] != c.peer) {
			err = fmt.Errorf("%w: envelope path does not run from its origin to its sender", ErrMalformed)
		}
		if err != nil {
			m.refused(c, err)
			return
		}
		m.onEnvelope(e, c.peer)
	case KindManifest:
		m.onManifest(c, ctl.Payload)
	case KindResult:
		r, err := UnmarshalResult(ctl.Payload)
		if err != nil {
			m.refused(c, err)
			return
		}
		m.mu.Lock()
		ch := c.results[r.Transfer]
		m.mu.Unlock()
		if ch != nil {
			select {
			case ch <- r.Code:
			default:
			}
		}
	}
}

// refused counts and logs a refused frame; the connection stays up.
func (m *Manager) refused(c *conn, err error) {
	m.errorStat(err)
	m.logf("refused a frame from %v: %v", c.peer, err)
}

// onManifest opens an incoming transfer, or refuses it.
func (m *Manager) onManifest(c *conn, payload []byte) {
	man, err := UnmarshalManifest(payload)
	if err != nil {
		m.refused(c, err)
		return
	}
	refuse := func(why string) {
		m.count(func(s *Stats) { s.TransfersRefused++ })
		m.logf("refused transfer %d (%d bytes) from %v: %s", man.Transfer, man.Size, c.peer, why)
		m.result(c, man.Transfer, ResultRefused)
	}
	if m.cfg.Task != ([32]byte{}) && man.Task != m.cfg.Task {
		refuse("another task")
		return
	}
	a, err := newAssembly(man, m.cfg.MaxTransferBytes)
	if err != nil {
		refuse(err.Error())
		return
	}
	m.mu.Lock()
	if _, dup := c.recv[man.Transfer]; dup || len(c.recv) >= m.cfg.MaxIncoming || c.state != connOpen {
		m.mu.Unlock()
		refuse("duplicate or too many at once")
		return
	}
	if man.Size > 0 {
		c.recv[man.Transfer] = &inTransfer{a: a, last: time.Now()}
	}
	m.mu.Unlock()
	if man.Size == 0 {
		m.complete(c, a)
	}
}

// onChunk adds a chunk to its transfer.
func (m *Manager) onChunk(c *conn, ch *Chunk) {
	m.mu.Lock()
	in := c.recv[ch.Transfer]
	if in == nil {
		m.mu.Unlock()
		m.count(func(s *Stats) { s.StrayChunks++ })
		return
	}
	done, err := in.a.add(ch.Offset, ch.Data)
	in.last = time.Now()
	if err != nil || done {
		delete(c.recv, ch.Transfer)
	}
	m.mu.Unlock()
	switch {
	case err != nil:
		m.refused(c, err)
		m.count(func(s *Stats) { s.TransfersFailedIn++ })
		m.result(c, ch.Transfer, ResultBadChunk)
	case done:
		m.complete(c, in.a)
	}
}

// complete verifies a fully received transfer and hands it up, or drops it.
func (m *Manager) complete(c *conn, a *assembly) {
	if err := a.verify(); err != nil {
		m.count(func(s *Stats) { s.TransfersFailedIn++; s.HashMismatches++ })
		m.logf("transfer %d from %v dropped: %v", a.m.Transfer, c.peer, err)
		m.result(c, a.m.Transfer, ResultHashMismatch)
		return
	}
	m.count(func(s *Stats) { s.TransfersReceived++ })
	m.result(c, a.m.Transfer, ResultOK)
	m.emit(Event{Type: EventTransfer, Peer: c.peer, Manifest: a.m, Data: a.buf})
}

// transmit sends one transfer on c, retrying, and reports whether it
// arrived.
func (m *Manager) transmit(c *conn, t *outTransfer) error {
	var last error
	for attempt := 0; attempt <= m.cfg.TransferRetries; attempt++ {
		if attempt > 0 {
			m.count(func(s *Stats) { s.TransferRetries++ })
		}
		last = m.attempt(c, t)
		if last == nil {
			return nil
		}
		if errors.Is(last, ErrUnreachable) {
			break
		}
		m.logf("transfer %d to %v, attempt %d: %v", t.handle, c.peer, attempt+1, last)
	}
	return last
}

// attempt sends the manifest and every chunk under flow control, then
// waits for the receiver's result.
func (m *Manager) attempt(c *conn, t *outTransfer) error {
	tid := m.tids.Add(1)
	man := Manifest{
		Transfer: tid, Size: uint64(len(t.data)), ChunkSize: uint32(m.cfg.ChunkSize),
		SHA256: t.sum, Fingerprint: t.fp, Task: t.task, Meta: t.meta,
	}
	payload, err := MarshalManifest(man)
	if err != nil {
		return err
	}
	res := make(chan ResultCode, 1)
	m.mu.Lock()
	c.results[tid] = res
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		delete(c.results, tid)
		m.mu.Unlock()
	}()
	frame, err := m.control(c.peer, KindManifest, payload)
	if err == nil {
		err = m.write(c, frame, false)
	}
	if err != nil {
		return err
	}
	poll := time.NewTicker(20 * time.Millisecond) // backs up OnBufferedAmountLow, which fires only below LowWater
	defer poll.Stop()
	pace := newPacer(m.cfg)
	for off := 0; off < len(t.data); off += m.cfg.ChunkSize {
		stallSince := time.Now()
		for pace.wait(c.dc.BufferedAmount()) {
			select {
			case <-c.low:
			case <-poll.C:
			case <-c.done:
				return fmt.Errorf("%w: connection closed", ErrUnreachable)
			}
			if time.Since(stallSince) > m.cfg.TransferTimeout {
				return fmt.Errorf("%w: send buffer did not drain for %v", ErrTransfer, m.cfg.TransferTimeout)
			}
		}
		data := t.data[off:min(off+m.cfg.ChunkSize, len(t.data))]
		if h := m.hooks.chunk; h != nil {
			var stop bool
			if data, stop = h(tid, uint64(off), data); stop {
				break
			}
		}
		frame, err := AppendChunk(make([]byte, 0, chunkHeader+len(data)), tid, uint64(off), data)
		if err != nil {
			return err
		}
		if err := m.write(c, frame, false); err != nil {
			return err
		}
		pace.sent(len(frame))
	}
	timer := time.NewTimer(m.cfg.TransferTimeout)
	defer timer.Stop()
	select {
	case code := <-res:
		if code == ResultOK {
			return nil
		}
		return fmt.Errorf("%w: receiver says %v", ErrTransfer, code)
	case <-timer.C:
		return fmt.Errorf("%w: no result within %v", ErrTransfer, m.cfg.TransferTimeout)
	case <-c.done:
		return fmt.Errorf("%w: connection closed", ErrUnreachable)
	}
}

// sendLoop sends c's queued transfers one at a time while c is open.
func (m *Manager) sendLoop(c *conn) {
	for {
		m.mu.Lock()
		if c.state != connOpen {
			m.mu.Unlock()
			return
		}
		if len(c.transfers) == 0 {
			m.mu.Unlock()
			select {
			case <-c.wake:
				continue
			case <-c.done:
				return
			}
		}
		t := c.transfers[0]
		c.transfers = c.transfers[1:]
		m.mu.Unlock()
		if err := m.transmit(c, t); err != nil {
			m.count(func(s *Stats) { s.TransfersFailedOut++ })
			m.emit(Event{Type: EventSendFailed, Peer: c.peer, Handle: t.handle, Err: err})
			continue
		}
		m.count(func(s *Stats) { s.TransfersSent++ })
		m.emit(Event{Type: EventSent, Peer: c.peer, Handle: t.handle})
	}
}

// newSessionID draws a connection attempt's ID.
func newSessionID() uint64 { return rand.Uint64() | 1 }

// iceServers converts the welcome's ICE servers to pion's.
func iceServers(in []signal.ICEServer) []webrtc.ICEServer {
	out := make([]webrtc.ICEServer, 0, len(in))
	for _, s := range in {
		out = append(out, webrtc.ICEServer{URLs: slices.Clone(s.URLs), Username: s.Username, Credential: s.Credential})
	}
	return out
}
