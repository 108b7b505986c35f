package rtc

import (
	"context"
	"crypto/sha256"
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

// Manager is one peer's set of WebRTC connections, one data channel per
// peer, and implements overlay.Transport. Send to a peer without a
// connection starts one: a signed SDP offer (every ICE candidate
// included) goes through the signalling server if the peer is a bootstrap
// contact and the bootstrap window is open, else hop by hop over the
// open connections towards the peer (see route.go); frames queue, bounded,
// until the channel opens. Connections to peers that are not overlay
// neighbours (SetNeighbors) are closed after Config.Grace. These
// decisions are its policy's; the Manager is the shell that carries them
// out (see the package doc).
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
	events chan Event
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	seq    atomic.Uint64    // last control sequence number used
	tids   atomic.Uint64    // last transfer ID used
	hooks  testHooks        // set by tests before any traffic
	now    func() time.Time // the clock whose readings the policy is fed

	smu   sync.Mutex
	stats Stats

	inflight atomic.Int64 // message handlers running now (see setupDC)
	res      *resources   // the resource manager: what peers may make this one hold
	refusals *refusalLog  // rate-limits the refusal log lines

	// mu serialises the policy and guards the shell's own state: the
	// connections (and their fields), the ICE servers and the
	// signalling client.
	mu      sync.Mutex
	core    *policy
	conns   map[linkID]*conn // one per link of the policy
	ice     []webrtc.ICEServer
	sig     *signal.Client
	handles uint64
	inSeq   uint64 // incoming transfers opened (their order, for superseding)
}

// testHooks lets in-package tests break transfers on purpose.
type testHooks struct {
	// chunk may replace a chunk's bytes (corrupt) or stop the transfer
	// mid-way (the sender then stops sending and the attempt times out).
	chunk func(transfer, offset uint64, data []byte) (out []byte, stop bool)
	// sdp may rewrite an offer or answer before it is sent (make this
	// side's candidates unreachable). Set and read under mu.
	sdp func(string) string
}

// hookSDP applies the sdp test hook, if any.
func (m *Manager) hookSDP(sdp string) string {
	m.mu.Lock()
	h := m.hooks.sdp
	m.mu.Unlock()
	if h == nil {
		return sdp
	}
	return h(sdp)
}

// maxInflight bounds the data channel message handlers running at once
// across all connections (browsers run one goroutine per message):
// EventBuffer's worth, beyond which the loop is behind anyway.
const maxInflight = 1024

// tickPeriod is how often the shell feeds the clock to the policy and
// checks incoming transfers for stalls: well under every timeout it
// enforces (the shortest, Grace and the ICE ones, are seconds).
const tickPeriod = 250 * time.Millisecond

// NewManager validates cfg and returns a manager with no connections.
// Attach a signalling client with AttachSignal for the first connection.
func NewManager(cfg Config) (*Manager, error) { return newManager(cfg, time.Now) }

// newManager is NewManager on the clock now (tests pass a virtual one).
func newManager(cfg Config, now func() time.Time) (*Manager, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{
		cfg: cfg, self: cfg.Identity.ID(), api: newAPI(cfg), now: now,
		events: make(chan Event, cfg.EventBuffer), ctx: ctx, cancel: cancel,
		core: newPolicy(policyConfigOf(cfg), cfg.Identity.ID()), conns: map[linkID]*conn{},
		res: newResources(cfg), refusals: newRefusalLog(refusalPeriod),
	}
	m.ice = iceServers(cfg.ICEServers)
	// Wall time, whatever the policy's clock: a restarted peer (same
	// key) starts above its old numbers.
	start := uint64(time.Now().UnixNano())
	m.seq.Store(start)
	m.tids.Store(start)
	m.spawn(m.ticker)
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
	s.Open = len(m.core.OpenPeers())
	s.Bans, s.OffersOverQuota, s.Denied = m.core.bansTotal, m.core.overQuota, m.core.denials
	s.ServerOffersRefused, s.DeadOffers, s.OffersEvicted = m.core.serverOffersRefused, m.core.deadOffers, m.core.evicted
	m.mu.Unlock()
	return s
}

func (m *Manager) count(f func(s *Stats)) {
	m.smu.Lock()
	f(&m.stats)
	m.smu.Unlock()
}

// SetTransferLimit bounds one incoming transfer's payload to n bytes
// (1 <= n <= Config.MaxTransferBytes): the peer runtime sets the exact
// size of the task's model once it knows the architecture, so a hostile
// manifest can make this peer hold no more than that (per transfer; the
// peer and system memory scopes are multiples of it).
func (m *Manager) SetTransferLimit(n int64) error {
	if n < 1 || n > m.cfg.MaxTransferBytes {
		return fmt.Errorf("%w: transfer limit %d, want 1..%d", ErrConfig, n, m.cfg.MaxTransferBytes)
	}
	m.res.setTransferLimit(n)
	return nil
}

// Resources returns what the resource manager holds now.
func (m *Manager) Resources() ResourceUsage { return m.res.usage() }

// Peers returns the peers with an open connection, sorted.
func (m *Manager) Peers() []ident.Peer {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.core.OpenPeers()
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
	return m.sendFrame(to, frame, true, kind == KindOverlay)
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
// A frame that stands alone (unordered: overlay frames, routed
// signalling, transfer results) goes on the unordered channel once it
// is open (ctlchannel.go).
func (m *Manager) sendFrame(to ident.Peer, frame []byte, connect, unordered bool) error {
	m.mu.Lock()
	if m.core.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	c := m.connLocked(to)
	if c == nil {
		if !connect {
			m.mu.Unlock()
			return fmt.Errorf("%w: no connection to %v", ErrUnreachable, to)
		}
		var err error
		if c, err = m.startLocked(to); err != nil {
			m.mu.Unlock()
			m.count(func(s *Stats) { s.Unreachable++ })
			return err
		}
	}
	if c.dc == nil { // not open yet
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
	if unordered && m.writeCtl(c, frame) {
		return nil
	}
	return m.write(c, frame, true)
}

// writeCtl sends an overlay frame on c's unordered channel, and reports
// whether it went: false if that channel is not open or refused it (then
// the main channel carries it).
func (m *Manager) writeCtl(c *conn, frame []byte) bool {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	if c.ctl == nil || c.ctl.BufferedAmount() > uint64(m.cfg.MaxBuffered) || c.ctl.Send(frame) != nil {
		return false
	}
	m.count(func(s *Stats) { s.FramesOut++; s.FramesOutUnordered++; s.BytesOut += uint64(len(frame)) })
	return true
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
	if m.core.closed {
		return 0, ErrClosed
	}
	c := m.connLocked(to)
	if c == nil {
		var err error
		if c, err = m.startLocked(to); err != nil {
			m.count(func(s *Stats) { s.Unreachable++ })
			return 0, err
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
	m.step(func(p *policy, now time.Time) { p.SetNeighbours(ids, now) })
}

// KeepLinks tells the manager the peers whose links are kept open beside
// the neighbours' (a peer's observers) but never used to route others'
// signalling: connections to them are not closed as strays.
func (m *Manager) KeepLinks(ids []ident.Peer) {
	m.step(func(p *policy, now time.Time) { p.SetKept(ids, now) })
}

// NoteRoute records that messages originated by origin arrived through
// neighbour via (a Discover, Repair or Route the overlay forwarded):
// signalling for origin is routed back that way for Config.CrumbTTL. This
// is how a joining peer, connected only to its bootstrap contact, is
// reached by the peers that answer its discovery.
func (m *Manager) NoteRoute(origin, via ident.Peer) {
	m.step(func(p *policy, now time.Time) { p.Crumb(origin, via, now) })
}

// Close closes every connection and stops the manager's goroutines.
// Events stops; it is not closed.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.core.closed {
		m.mu.Unlock()
		return nil
	}
	m.core.Shutdown(m.now())
	acts := m.core.Ready()
	m.mu.Unlock()
	m.cancel()
	var pcs []*webrtc.PeerConnection
	for _, a := range acts {
		if a.kind != actClose {
			continue
		}
		if pc := m.teardown(a); pc != nil {
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
