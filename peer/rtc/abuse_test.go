package rtc

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Limits against a hostile peer, on the shell with a virtual clock: the
// frames go straight into onMessage, as a data channel would hand them.

// newShellWith is newShell with cfg mutated and its log collected.
func newShellWith(t *testing.T, seed byte, mutate func(*Config)) (*Manager, *fakeClock, *logLines) {
	t.Helper()
	clock := &fakeClock{now: scriptEpoch}
	cfg := testConfig(t, seed)
	logs := &logLines{}
	cfg.Logf = logs.add
	if mutate != nil {
		mutate(&cfg)
	}
	m, err := newManager(cfg, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, clock, logs
}

type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, strings.TrimSpace(fmt.Sprintf(format, args...)))
}

func (l *logLines) matching(sub string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			out = append(out, s)
		}
	}
	return out
}

func signedFrame(t *testing.T, from signal.Identity, to ident.Peer, kind Kind, seq uint64, payload []byte) []byte {
	t.Helper()
	f, err := AppendControl(nil, from, to, kind, seq, payload)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func manifestFrame(t *testing.T, from signal.Identity, to ident.Peer, seq uint64, man Manifest) []byte {
	t.Helper()
	b, err := MarshalManifest(man)
	if err != nil {
		t.Fatal(err)
	}
	return signedFrame(t, from, to, KindManifest, seq, b)
}

// allocated returns the bytes allocated while f ran (every goroutine's:
// the bound checked is far above the shell's own background churn).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A manifest claiming 64 MiB in 1-byte chunks made the receiver allocate
// 64 MiB and a 64 Mi-entry chunk index at once, refused or not. Now the
// chunk size is ours, the size is bounded by the model's, every check
// comes before any allocation, and a manifest allocates only its chunk
// index: the payload's memory is reserved chunk by chunk as it arrives,
// against the peer's and the system's budgets.
func TestHostileManifestAllocatesNothingUpFront(t *testing.T) {
	const model = 400_000 // an MNIST model's bytes, about
	m, clock, _ := newShellWith(t, 1, func(c *Config) { c.IncomingTransfers = 3 })
	if m.cfg.MaxIncoming != 1 {
		t.Fatalf("default MaxIncoming = %d, want 1 (a peer holds one model at most)", m.cfg.MaxIncoming)
	}
	if err := m.SetTransferLimit(model); err != nil {
		t.Fatal(err)
	}
	hostile := testIdentity(t, 2)
	m.SetNeighbors([]ident.Peer{hostile.ID()})
	c := openLink(t, m, hostile, clock.Now())
	seq := uint64(100)
	send := func(man Manifest) uint64 {
		seq++
		f := manifestFrame(t, hostile, m.ID(), seq, man)
		return allocated(func() { m.onMessage(c, f) })
	}
	for _, tc := range []struct {
		name string
		man  Manifest
	}{
		{"64 MiB in 1-byte chunks", Manifest{Transfer: 1, Size: 64 << 20, ChunkSize: 1}},
		{"64 MiB in our chunks", Manifest{Transfer: 2, Size: 64 << 20, ChunkSize: uint32(m.cfg.ChunkSize)}},
		{"the model in 1-byte chunks", Manifest{Transfer: 3, Size: model, ChunkSize: 1}},
	} {
		before := m.Stats().TransfersRefused
		if n := allocated(func() { send(tc.man) }); n > 1<<20 {
			t.Errorf("%s: allocated %d bytes", tc.name, n)
		}
		if got := m.Stats().TransfersRefused - before; got != 1 {
			t.Errorf("%s: refused %d", tc.name, got)
		}
	}
	// Manifests within the limit open transfers but hold nothing yet;
	// each supersedes the one before.
	cs := uint64(m.cfg.ChunkSize)
	for tid := uint64(10); tid < 13; tid++ {
		if n := send(Manifest{Transfer: tid, Size: model, ChunkSize: uint32(cs)}); n > 1<<20 {
			t.Errorf("transfer %d: manifest allocated %d bytes", tid, n)
		}
	}
	if u := m.Resources(); u.HeldBytes != 0 || u.PeerLimit != model || u.SystemLimit != 3*model {
		t.Fatalf("usage %+v", u)
	}
	if s := m.Stats(); s.TransfersSuperseded != 2 {
		t.Fatalf("superseded %d, want 2", s.TransfersSuperseded)
	}
	// Chunks reserve as they come (the superseded transfer's are
	// strays), and a stall gives the memory back.
	chunk := make([]byte, cs)
	m.onMessage(c, mustChunk(t, 10, 0, chunk))
	m.onMessage(c, mustChunk(t, 12, 0, chunk))
	m.onMessage(c, mustChunk(t, 12, cs, chunk))
	if u := m.Resources(); u.HeldBytes != 2*int64(cs) || m.Stats().StrayChunks != 1 {
		t.Fatalf("held %d after two chunks (want %d), %d strays", u.HeldBytes, 2*cs, m.Stats().StrayChunks)
	}
	m.tick(clock.advance(m.cfg.TransferTimeout + time.Second)) // it stalls
	if u := m.Resources(); u.HeldBytes != 0 || u.PeakBytes != 2*int64(cs) {
		t.Fatalf("after the stall: %+v", u)
	}
}

// A peer's newer manifest supersedes its transfer in flight: the older
// one is dropped and its memory released at once, so a peer can make
// this one hold at most one model (MaxIncoming = 1) however many
// transfers it starts and abandons one chunk short, and a sender that
// retries (or has a newer model) is never refused because a stale
// transfer is stuck. The old rule (two at once, a third refused) held
// two models per peer and refused the retry until the stall timed out.
func TestNewerManifestSupersedes(t *testing.T) {
	m, clock, _ := newShellWith(t, 1, nil)
	cs := m.cfg.ChunkSize
	limit := 4 * cs
	if err := m.SetTransferLimit(int64(limit)); err != nil {
		t.Fatal(err)
	}
	peer := testIdentity(t, 2)
	m.SetNeighbors([]ident.Peer{peer.ID()})
	c := openLink(t, m, peer, clock.Now())
	data := make([]byte, limit)
	for i := range data {
		data[i] = byte(i)
	}
	man := func(tid uint64) []byte {
		return manifestFrame(t, peer, m.ID(), 100+tid, Manifest{Transfer: tid, Size: uint64(limit), ChunkSize: uint32(cs), SHA256: sha256.Sum256(data)})
	}
	// Eight transfers, each abandoned one chunk short of done.
	for tid := uint64(1); tid <= 8; tid++ {
		m.onMessage(c, man(tid))
		if u := m.Resources(); u.HeldBytes != 0 {
			t.Fatalf("transfer %d: %d bytes still held for the superseded one", tid, u.HeldBytes)
		}
		for off := 0; off < limit-cs; off += cs {
			m.onMessage(c, mustChunk(t, tid, uint64(off), data[off:off+cs]))
		}
	}
	if u := m.Resources(); u.PeakPeerBytes != int64(limit-cs) || u.HeldBytes != int64(limit-cs) {
		t.Fatalf("usage %+v: want at most one transfer held (%d bytes)", u, limit-cs)
	}
	// A late chunk of a superseded transfer is a stray, not a strike;
	// the newest completes and is handed up.
	m.onMessage(c, mustChunk(t, 3, uint64(limit-cs), data[limit-cs:]))
	m.onMessage(c, mustChunk(t, 8, uint64(limit-cs), data[limit-cs:]))
	s := m.Stats()
	if s.TransfersSuperseded != 7 || s.TransfersReceived != 1 || s.StrayChunks != 1 || s.Refused() != 0 || s.TransfersRefused != 0 {
		t.Fatalf("stats %+v", s)
	}
	if u := m.Resources(); u.HeldBytes != 0 {
		t.Fatalf("held %d after the newest completed", u.HeldBytes)
	}
	if m.core.strikes[peer.ID()].n != 0 {
		t.Fatalf("superseding struck the peer")
	}
}

// The resource manager's scopes: one peer cannot hold more than its
// share, and all peers together not more than the system's.
func TestResourceScopes(t *testing.T) {
	r := newResources(Config{MaxTransferBytes: 100, MaxIncoming: 2, IncomingTransfers: 3})
	a, b := ident.Peer{1}, ident.Peer{2}
	if err := r.reserveMemory(a, 150); err != nil {
		t.Fatal(err)
	}
	if err := r.reserveMemory(a, 51); !errors.Is(err, ErrResource) {
		t.Fatalf("over the peer scope: %v", err)
	}
	if err := r.reserveMemory(b, 151); !errors.Is(err, ErrResource) {
		t.Fatalf("over the system scope: %v", err)
	}
	r.releaseMemory(a, 150)
	if err := r.reserveMemory(b, 150); err != nil {
		t.Fatalf("after release: %v", err)
	}
	if u := r.usage(); u.HeldBytes != 150 || u.PeakBytes != 150 || u.PeakPeerBytes != 150 || u.OverLimit != 2 || len(r.peerHeld) != 1 {
		t.Fatalf("usage %+v, %d peers", u, len(r.peerHeld))
	}
}

// A transfer whose chunks go over the peer's budget is dropped whole and
// its memory released.
func TestTransferOverBudgetIsDropped(t *testing.T) {
	m, clock, _ := newShellWith(t, 1, func(c *Config) { c.MaxIncoming = 2; c.IncomingTransfers = 2 })
	cs := m.cfg.ChunkSize
	if err := m.SetTransferLimit(int64(4 * cs)); err != nil {
		t.Fatal(err)
	}
	peers := []signal.Identity{testIdentity(t, 2), testIdentity(t, 3)}
	m.SetNeighbors([]ident.Peer{peers[0].ID(), peers[1].ID()})
	conns := []*conn{openLink(t, m, peers[0], clock.Now()), openLink(t, m, peers[1], clock.Now())}
	data := make([]byte, 4*cs)
	sum := sha256.Sum256(data)
	// Peer 0 holds 6 of the system scope's 8 chunks with two transfers ...
	for tid := uint64(1); tid <= 2; tid++ {
		m.onMessage(conns[0], manifestFrame(t, peers[0], m.ID(), 10+tid, Manifest{Transfer: tid, Size: uint64(len(data)), ChunkSize: uint32(cs), SHA256: sum}))
		for off := 0; off < 3*cs; off += cs {
			m.onMessage(conns[0], mustChunk(t, tid, uint64(off), data[off:off+cs]))
		}
	}
	// ... so peer 1's transfer gets two chunks, not three: dropped whole
	// (its fourth chunk is then a stray).
	m.onMessage(conns[1], manifestFrame(t, peers[1], m.ID(), 20, Manifest{Transfer: 7, Size: uint64(len(data)), ChunkSize: uint32(cs), SHA256: sum}))
	for off := 0; off < 4*cs; off += cs {
		m.onMessage(conns[1], mustChunk(t, 7, uint64(off), data[off:off+cs]))
	}
	s := m.Stats()
	if s.OverBudget != 1 || s.StrayChunks != 1 {
		t.Fatalf("over budget %d, stray %d", s.OverBudget, s.StrayChunks)
	}
	if u := m.Resources(); u.HeldBytes != int64(6*cs) || u.PeakBytes != int64(8*cs) || u.PeakPeerBytes != int64(6*cs) {
		t.Fatalf("usage %+v", u)
	}
	// Peer 0's complete and are handed up; everything is released.
	for tid := uint64(1); tid <= 2; tid++ {
		m.onMessage(conns[0], mustChunk(t, tid, uint64(3*cs), data[3*cs:]))
	}
	if u := m.Resources(); u.HeldBytes != 0 || m.Stats().TransfersReceived != 2 {
		t.Fatalf("after completion: %+v, %+v", u, m.Stats())
	}
}

// An oversized control frame is refused for its size before its
// signature is checked (the cheap check first): counted Oversized, not
// BadSignature.
func TestSizeCheckedBeforeSignature(t *testing.T) {
	m, clock, _ := newShellWith(t, 1, nil)
	peer, other := testIdentity(t, 2), testIdentity(t, 3)
	c := openLink(t, m, peer, clock.Now())
	big := signedFrame(t, other, m.ID(), KindOverlay, 5, make([]byte, m.cfg.MaxControlPayload+1)) // not peer's signature
	m.onMessage(c, big)
	if s := m.Stats(); s.Oversized != 1 || s.BadSignature != 0 {
		t.Fatalf("oversized %d, bad signature %d", s.Oversized, s.BadSignature)
	}
}

// MaxStrikes refused frames within StrikeWindow ban the peer: its
// connection closes and its offers are refused until the ban ends.
func TestStrikesBanAPeer(t *testing.T) {
	m, clock, _ := newShellWith(t, 1, func(c *Config) { c.MaxStrikes = 50; c.BanTime = time.Minute })
	peer, other := testIdentity(t, 2), testIdentity(t, 3)
	m.SetNeighbors([]ident.Peer{peer.ID()})
	c := openLink(t, m, peer, clock.Now())
	for i := range 49 {
		m.onMessage(c, signedFrame(t, other, m.ID(), KindOverlay, uint64(i+1), []byte("forged")))
	}
	if !slices.Contains(m.Peers(), peer.ID()) {
		t.Fatal("banned before MaxStrikes")
	}
	m.onMessage(c, signedFrame(t, other, m.ID(), KindOverlay, 99, []byte("forged")))
	if slices.Contains(m.Peers(), peer.ID()) || m.Stats().Bans != 1 {
		t.Fatalf("not banned after MaxStrikes: %+v", m.Stats())
	}
	now := clock.Now()
	m.mu.Lock()
	_, err := m.core.Offer(peer.ID(), 1234, now.UnixMilli(), false, ident.Peer{}, now)
	m.mu.Unlock()
	if !errors.Is(err, ErrBanned) {
		t.Fatalf("offer from a banned peer: %v", err)
	}
	if err := m.Send(peer.ID(), []byte("x")); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("send to a banned peer: %v", err)
	}
	m.tick(clock.advance(time.Minute + time.Second))
	now = clock.Now()
	m.mu.Lock()
	_, err = m.core.Offer(peer.ID(), 1235, now.UnixMilli(), false, ident.Peer{}, now)
	m.mu.Unlock()
	if err != nil {
		t.Fatalf("offer after the ban: %v", err)
	}
}

// Thousands of bad frames write a handful of log lines: the first of each
// reason in full, the rest as one summary per period.
func TestRefusalLogIsRateLimited(t *testing.T) {
	m, clock, logs := newShellWith(t, 1, func(c *Config) { c.MaxStrikes, c.MaxFrameRate = 0, 0 }) // the log alone: no bans, no frame budget
	peer, other := testIdentity(t, 2), testIdentity(t, 3)
	m.SetNeighbors([]ident.Peer{peer.ID()})
	c := openLink(t, m, peer, clock.Now())
	const n = 5000
	forged := signedFrame(t, other, m.ID(), KindOverlay, 1, []byte("forged"))
	for range n {
		m.onMessage(c, forged)
	}
	m.onMessage(c, []byte{1, 1, 5, 0, 0}) // garbage: another reason
	if got := logs.matching("refused"); len(got) != 2 {
		t.Fatalf("%d refusal lines before the summary: %q", len(got), got)
	}
	m.tick(clock.advance(refusalPeriod))
	sum := logs.matching("refused 4,999 more frames from " + peer.ID().String() + " in the last 10s: bad signature")
	if len(sum) != 1 {
		t.Fatalf("summary: %q", logs.matching("more frames"))
	}
	if s := m.Stats(); s.BadSignature != n || s.LogsSuppressed != n-1 {
		t.Fatalf("stats %+v", s)
	}
	// The next period starts afresh: its first refusal is logged in full.
	m.onMessage(c, forged)
	if got := logs.matching("refused a frame"); len(got) != 3 {
		t.Fatalf("%d full lines", len(got))
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 999: "999", 1000: "1,000", 4812: "4,812", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// At most maxInflight message handlers run at once; a message past that
// is dropped and counted, not queued on a goroutine of its own.
func TestInboundHandlersAreBounded(t *testing.T) {
	m, _, _ := newShellWith(t, 1, nil)
	for i := range maxInflight {
		if !m.admit() {
			t.Fatalf("handler %d refused", i)
		}
	}
	if m.admit() || m.Stats().InboundDropped != 1 {
		t.Fatalf("handler past the bound admitted (%+v)", m.Stats())
	}
	m.inflight.Add(-1) // one finishes
	if !m.admit() {
		t.Fatal("a freed slot was not reused")
	}
}
