package rtc

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// The shell on a virtual clock, without network: links are made through
// the policy directly and their connections have no pion objects.

// fakeClock is a virtual clock safe for the shell's goroutines.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

func newShell(t *testing.T, seed byte) (*Manager, *fakeClock) {
	t.Helper()
	clock := &fakeClock{now: scriptEpoch}
	m, err := newManager(testConfig(t, seed), clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, clock
}

// openLink makes an open link from peer's offer, with its connection.
func openLink(t *testing.T, m *Manager, peer signal.Identity, now time.Time) *conn {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	out, err := m.core.Offer(peer.ID(), 77, now.UnixMilli(), false, ident.Peer{}, now)
	if err != nil || out.accepted == nil {
		t.Fatalf("offer: %v", err)
	}
	c := m.newConnLocked(out.accepted)
	c.pub = peer.PublicKey()
	if !m.core.Opened(peer.ID(), c.link, now) {
		t.Fatal("not opened")
	}
	return c
}

// nextEvent returns the next event, or fails if none is waiting.
func nextEvent(t *testing.T, m *Manager) Event {
	t.Helper()
	select {
	case ev := <-m.Events():
		return ev
	default:
		t.Fatal("no event")
	}
	return Event{}
}

func TestShellTimeoutsFollowItsClock(t *testing.T) {
	m, clock := newShell(t, 1)
	cfg := m.cfg
	far := oid(testIdentity(t, 9))

	// An attempt that never opens, with a transfer waiting on it.
	m.mu.Lock()
	l, err := m.core.Connect(far, 1, clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	m.newConnLocked(l)
	m.mu.Unlock()
	h, err := m.SendTransfer(far, nil, []byte("model"), [32]byte{}, [32]byte{})
	if err != nil {
		t.Fatal(err)
	}
	m.tick(clock.advance(cfg.ConnectTimeout))
	if s := m.Stats(); s.ConnectsFailed != 0 {
		t.Fatalf("failed at ConnectTimeout, not after: %+v", s)
	}
	m.tick(clock.advance(time.Millisecond))
	if s := m.Stats(); s.ConnectsFailed != 1 || s.TransfersFailedOut != 1 {
		t.Fatalf("after ConnectTimeout: %+v", s)
	}
	if ev := nextEvent(t, m); ev.Type != EventSendFailed || ev.Handle != h || !errors.Is(ev.Err, ErrUnreachable) {
		t.Fatalf("event %+v", ev)
	}
	// Backing off: sends fail fast until RetryBackoff has passed.
	if err := m.Send(far, []byte("x")); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("send while backing off: %v", err)
	}
	m.mu.Lock()
	until := m.core.BackoffUntil(far)
	m.mu.Unlock()
	if want := clock.Now().Add(cfg.RetryBackoff); !until.Equal(want) {
		t.Fatalf("backing off until %v, want %v", until, want)
	}

	// An incoming transfer that stalls for TransferTimeout is dropped and
	// answered ResultTimeout (queued: this connection has no channel).
	peer := testIdentity(t, 2)
	m.SetNeighbors([]ident.Peer{peer.ID()}) // not closed as a stray meanwhile
	c := openLink(t, m, peer, clock.Now())
	a, err := newAssembly(Manifest{Transfer: 5, Size: 10, ChunkSize: 1024}, cfg.MaxTransferBytes)
	if err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	c.recv[5] = &inTransfer{a: a, last: clock.Now()}
	m.mu.Unlock()
	m.tick(clock.advance(cfg.TransferTimeout))
	if s := m.Stats(); s.TransfersFailedIn != 0 {
		t.Fatalf("dropped at TransferTimeout, not after: %+v", s)
	}
	m.tick(clock.advance(time.Millisecond))
	m.mu.Lock()
	left, queued := len(c.recv), len(c.queue)
	m.mu.Unlock()
	if s := m.Stats(); s.TransfersFailedIn != 1 || left != 0 || queued != 1 {
		t.Fatalf("after TransferTimeout: %d in flight, %d queued, %+v", left, queued, s)
	}
	f, err := ParseFrame(c.queue[0])
	if err != nil || f.Control == nil || f.Control.Kind != KindResult {
		t.Fatalf("queued %v, %v", f, err)
	}
	if r, err := UnmarshalResult(f.Control.Payload); err != nil || r.Transfer != 5 || r.Code != ResultTimeout {
		t.Fatalf("result %+v, %v", r, err)
	}
}

// A routed envelope leaves a crumb (and goes on) only if the session
// inside verifies as its origin's.
func TestEnvelopeCrumbOnlyAfterVerifiedSession(t *testing.T) {
	origin, other, neighbour := testIdentity(t, 3), testIdentity(t, 4), testIdentity(t, 5)
	target := oid(testIdentity(t, 6))
	offer := func(signer signal.Identity, now time.Time) []byte {
		b, err := EncodeSession(Session{Kind: SessionOffer, To: target, ID: 1, UnixMilli: now.UnixMilli(), SDP: "v=0"}, signer)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tamper := func(b []byte) []byte {
		b = append([]byte(nil), b...)
		b[len(b)-1] ^= 1
		return b
	}
	cases := []struct {
		name   string
		body   func(now time.Time) []byte
		crumb  bool
		refuse uint64
	}{
		{"verified", func(now time.Time) []byte { return offer(origin, now) }, true, 0},
		{"signed by another peer", func(now time.Time) []byte { return offer(other, now) }, false, 1},
		{"bad signature", func(now time.Time) []byte { return tamper(offer(origin, now)) }, false, 1},
		{"not a session", func(time.Time) []byte { return []byte{1, 2, 3} }, false, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, clock := newShell(t, 1)
			openLink(t, m, neighbour, clock.Now())
			e := Envelope{Origin: oid(origin), Target: target, Path: []ident.Peer{oid(origin), oid(neighbour)}, Body: tc.body(clock.Now())}
			m.onEnvelope(e, oid(neighbour))
			m.mu.Lock()
			cr, ok := m.core.crumbs[oid(origin)]
			m.mu.Unlock()
			if ok != tc.crumb || ok && cr.via != oid(neighbour) {
				t.Errorf("crumb %v (%+v), want %v", ok, cr, tc.crumb)
			}
			s := m.Stats()
			if s.SessionsRefused != tc.refuse {
				t.Errorf("refused %d sessions, want %d", s.SessionsRefused, tc.refuse)
			}
			// A verified envelope goes on (here back to the neighbour, the
			// only open link, which is on its path: no route); a refused
			// one is not routed at all.
			if routed := s.SignalsDropped > 0; routed != tc.crumb {
				t.Errorf("routed %v, want %v (%+v)", routed, tc.crumb, s)
			}
		})
	}
}
