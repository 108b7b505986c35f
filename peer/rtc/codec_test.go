package rtc

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

func testIdentity(t testing.TB, seed byte) signal.Identity {
	t.Helper()
	id, err := signal.IdentityFromSeed(bytes.Repeat([]byte{seed}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func oid(id signal.Identity) ident.Peer { return id.ID() }

func TestControlFrameRoundTrip(t *testing.T) {
	a, b := testIdentity(t, 1), testIdentity(t, 2)
	f, err := AppendControl(nil, a, oid(b), KindOverlay, 42, []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseFrame(f)
	if err != nil {
		t.Fatal(err)
	}
	c := p.Control
	if c == nil || c.Kind != KindOverlay || c.Seq != 42 || string(c.Payload) != "hello" {
		t.Fatalf("parsed %+v", c)
	}
	if err := VerifyControl(c, a.PublicKey(), oid(a), oid(b)); err != nil {
		t.Fatal(err)
	}
	// The signature binds sender, receiver and every byte.
	for name, check := range map[string]func() error{
		"other receiver": func() error { return VerifyControl(c, a.PublicKey(), oid(a), oid(a)) },
		"other key":      func() error { return VerifyControl(c, b.PublicKey(), oid(a), oid(b)) },
		"key not of ID":  func() error { return VerifyControl(c, b.PublicKey(), oid(b), oid(b)) },
	} {
		if err := check(); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: %v, want ErrBadSignature", name, err)
		}
	}
	for i := range f {
		g := bytes.Clone(f)
		g[i] ^= 0x40
		p, err := ParseFrame(g)
		if err != nil {
			continue // refused by the parser: fine
		}
		if err := VerifyControl(p.Control, a.PublicKey(), oid(a), oid(b)); !errors.Is(err, ErrBadSignature) {
			t.Fatalf("flipping byte %d: %v, want ErrBadSignature", i, err)
		}
	}
}

func TestParseFrameRefuses(t *testing.T) {
	a, b := testIdentity(t, 1), testIdentity(t, 2)
	good, _ := AppendControl(nil, a, oid(b), KindApp, 1, []byte("x"))
	chunk, _ := AppendChunk(nil, 7, 0, []byte("data"))
	withVersion := func(f []byte, v byte) []byte { g := bytes.Clone(f); g[0] = v; return g }
	cases := map[string]struct {
		in   []byte
		want error
	}{
		"empty":             {nil, ErrMalformed},
		"one byte":          {[]byte{1}, ErrMalformed},
		"control version 0": {withVersion(good, 0), ErrVersion},
		"control version 2": {withVersion(good, 2), ErrVersion},
		"chunk version 9":   {withVersion(chunk, 9), ErrVersion},
		"unknown type":      {[]byte{1, 3, 0, 0}, ErrUnknownKind},
		"unknown kind":      {append([]byte{1, 1, 99}, good[3:]...), ErrUnknownKind},
		"kind zero":         {append([]byte{1, 1, 0}, good[3:]...), ErrUnknownKind},
		"truncated control": {good[:len(good)-1], ErrMalformed},
		"trailing control":  {append(bytes.Clone(good), 0), ErrMalformed},
		"short control":     {good[:20], ErrMalformed},
		"empty chunk":       {chunk[:chunkHeader], ErrMalformed},
		"oversized":         {make([]byte, MaxFrameSize+1), ErrTooLarge},
		"oversized chunk":   {append(bytes.Clone(chunk), make([]byte, MaxFrameSize)...), ErrTooLarge},
	}
	for name, c := range cases {
		if _, err := ParseFrame(c.in); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	if _, err := AppendControl(nil, a, oid(b), Kind(77), 1, nil); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("AppendControl unknown kind: %v", err)
	}
	if _, err := AppendControl(nil, a, oid(b), KindApp, 1, make([]byte, MaxFrameSize)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("AppendControl oversized: %v", err)
	}
	if _, err := AppendChunk(nil, 1, 0, nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("AppendChunk empty: %v", err)
	}
}

func TestChunkRoundTrip(t *testing.T) {
	f, err := AppendChunk(nil, 9, 65536, []byte("abc"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseFrame(f)
	if err != nil || p.Chunk == nil || p.Chunk.Transfer != 9 || p.Chunk.Offset != 65536 || string(p.Chunk.Data) != "abc" {
		t.Fatalf("%+v %v", p.Chunk, err)
	}
}

func TestReplayWindow(t *testing.T) {
	var w replayWindow
	steps := []struct {
		seq  uint64
		want bool
	}{
		{100, true}, {100, false}, {101, true}, {99, true}, {99, false}, {50, true},
		{100 + ReplayWindow, true}, {101, false}, {100, false}, {102, true}, // 101 (seen) and 100 (too old) at the edge
		{5000, true}, {5000 - ReplayWindow, false}, {5000 - ReplayWindow + 1, true}, {4999, true}, {4999, false},
		{1 << 40, true}, {5000, false}, {1<<40 - 1, true}, {1<<40 - 64, true}, {1<<40 - 64, false}, {1<<40 + 63, true}, {1<<40 - 64, false}, {1 << 40, false},
	}
	for i, s := range steps {
		if got := w.accept(s.seq); got != s.want {
			t.Fatalf("step %d: accept(%d) = %v, want %v", i, s.seq, got, s.want)
		}
	}
}

func TestReplayWindowMatchesModel(t *testing.T) {
	var w replayWindow
	seen := map[uint64]bool{}
	var top uint64
	x := uint64(12345)
	for i := range 20000 {
		x = x*6364136223846793005 + 1442695040888963407
		var seq uint64
		switch x >> 62 {
		case 0:
			seq = top + (x>>40)%200 // ahead
		default:
			seq = top - min(top, (x>>40)%1300) // behind, sometimes beyond the window
		}
		fresh := !seen[seq] && (i == 0 || seq > top || top-seq < ReplayWindow)
		if got := w.accept(seq); got != fresh {
			t.Fatalf("step %d: accept(%d) = %v, model says %v (top %d)", i, seq, got, fresh, top)
		}
		if fresh {
			seen[seq] = true
			top = max(top, seq)
		}
	}
}

func TestSessionRoundTrip(t *testing.T) {
	a, b := testIdentity(t, 1), testIdentity(t, 2)
	in := Session{Kind: SessionOffer, To: oid(b), ID: 77, UnixMilli: 1700000000000, SDP: "v=0\r\n"}
	enc, err := EncodeSession(in, a)
	if err != nil {
		t.Fatal(err)
	}
	s, err := DecodeSession(enc)
	if err != nil {
		t.Fatal(err)
	}
	if s.From != oid(a) || s.To != oid(b) || s.ID != 77 || s.UnixMilli != in.UnixMilli || s.SDP != in.SDP || s.Kind != SessionOffer {
		t.Fatalf("decoded %+v", s)
	}
	for i := range enc {
		g := bytes.Clone(enc)
		g[i] ^= 1
		if _, err := DecodeSession(g); err == nil {
			t.Fatalf("flipping byte %d went unnoticed", i)
		}
	}
	// A session re-signed by another key under the first one's ID.
	forged := bytes.Clone(enc)
	copy(forged[66:98], b.PublicKey())
	if _, err := DecodeSession(forged); !errors.Is(err, ErrBadSignature) {
		t.Errorf("forged key: %v", err)
	}
	bad := bytes.Clone(enc)
	bad[0] = 2
	if _, err := DecodeSession(bad); !errors.Is(err, ErrVersion) {
		t.Errorf("version: %v", err)
	}
	if _, err := EncodeSession(Session{Kind: SessionOffer, To: oid(b), SDP: string(make([]byte, MaxSDP+1))}, a); !errors.Is(err, ErrTooLarge) {
		t.Errorf("huge SDP: %v", err)
	}
}

func TestEnvelopeRoundTrip(t *testing.T) {
	a, b, c := oid(testIdentity(t, 1)), oid(testIdentity(t, 2)), oid(testIdentity(t, 3))
	in := Envelope{Origin: a, Target: b, Path: []ident.Peer{a, c}, Back: []ident.Peer{c}, Body: []byte("body")}
	enc, err := MarshalEnvelope(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := UnmarshalEnvelope(enc)
	if err != nil {
		t.Fatal(err)
	}
	if out.Origin != a || out.Target != b || len(out.Path) != 2 || out.Path[1] != c || len(out.Back) != 1 || string(out.Body) != "body" {
		t.Fatalf("decoded %+v", out)
	}
	for name, c := range map[string]struct {
		in   []byte
		want error
	}{
		"version":  {append([]byte{2}, enc[1:]...), ErrVersion},
		"short":    {enc[:len(enc)-1], ErrMalformed},
		"trailing": {append(bytes.Clone(enc), 0), ErrMalformed},
		"empty":    {nil, ErrMalformed},
		"long path": {func() []byte {
			g := bytes.Clone(enc)
			g[65] = MaxRouteHops + 1
			return g
		}(), ErrMalformed},
	} {
		if _, err := UnmarshalEnvelope(c.in); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	if _, err := MarshalEnvelope(Envelope{Origin: a, Target: b, Path: make([]ident.Peer, MaxRouteHops+1), Body: []byte("x")}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("long path: %v", err)
	}
	if _, err := UnmarshalEnvelope(mustEnvelope(t, Envelope{Origin: a, Target: a, Body: []byte("x")})); !errors.Is(err, ErrMalformed) {
		t.Errorf("to itself: %v", err)
	}
}

func mustEnvelope(t *testing.T, e Envelope) []byte {
	t.Helper()
	b, err := MarshalEnvelope(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestManifestAndResult(t *testing.T) {
	m := Manifest{Transfer: 5, Size: 1000, ChunkSize: 300, SHA256: sha256.Sum256([]byte("x")), Fingerprint: [32]byte{1}, Task: [32]byte{2}, Meta: []byte("meta")}
	enc, err := MarshalManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalManifest(enc)
	if err != nil || got.Transfer != 5 || got.Size != 1000 || got.ChunkSize != 300 || got.SHA256 != m.SHA256 || got.Fingerprint != m.Fingerprint || got.Task != m.Task || string(got.Meta) != "meta" || got.Chunks() != 4 {
		t.Fatalf("%+v %v", got, err)
	}
	for name, c := range map[string]struct {
		in   []byte
		want error
	}{
		"version":    {append([]byte{9}, enc[1:]...), ErrVersion},
		"short":      {enc[:len(enc)-1], ErrMalformed},
		"trailing":   {append(bytes.Clone(enc), 1), ErrMalformed},
		"zero chunk": {func() []byte { g := bytes.Clone(enc); copy(g[17:21], []byte{0, 0, 0, 0}); return g }(), ErrMalformed},
		"huge chunk": {func() []byte { g := bytes.Clone(enc); copy(g[17:21], []byte{0, 0x10, 0, 0}); return g }(), ErrMalformed},
	} {
		if _, err := UnmarshalManifest(c.in); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	r, err := UnmarshalResult(MarshalResult(Result{Transfer: 9, Code: ResultHashMismatch}))
	if err != nil || r.Transfer != 9 || r.Code != ResultHashMismatch {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err := UnmarshalResult([]byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 200}); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("bad code: %v", err)
	}
	if _, err := UnmarshalResult([]byte{2, 0, 0, 0, 0, 0, 0, 0, 1, 0}); !errors.Is(err, ErrVersion) {
		t.Errorf("bad version: %v", err)
	}
}

func TestAssembly(t *testing.T) {
	data := make([]byte, 1000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	m := Manifest{Size: 1000, ChunkSize: 300, SHA256: sha256.Sum256(data)}
	if _, err := newAssembly(m, 999); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("limit: %v", err)
	}
	a, err := newAssembly(m, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	// Out of order, with a duplicate; bad offsets and lengths refused.
	for _, off := range []uint64{900, 300} {
		if done, err := a.add(off, data[off:min(off+300, 1000)]); done || err != nil {
			t.Fatalf("add %d: %v %v", off, done, err)
		}
	}
	if _, err := a.add(300, data[300:600]); err != nil {
		t.Fatalf("duplicate: %v", err)
	}
	for _, bad := range []struct{ off, n uint64 }{{301, 300}, {600, 299}, {1200, 300}, {900, 300}} {
		if _, err := a.add(bad.off, make([]byte, bad.n)); !errors.Is(err, ErrMalformed) {
			t.Errorf("add(%d, %d bytes): %v", bad.off, bad.n, err)
		}
	}
	if err := a.verify(); !errors.Is(err, ErrTransfer) {
		t.Errorf("incomplete verify: %v", err)
	}
	a.add(0, data[:300])
	if done, err := a.add(600, data[600:900]); !done || err != nil {
		t.Fatalf("last: %v %v", done, err)
	}
	if err := a.verify(); err != nil || !bytes.Equal(a.buf, data) {
		t.Fatalf("verify: %v", err)
	}
	// A corrupted chunk fails the hash.
	b, _ := newAssembly(m, 1<<20)
	bad := bytes.Clone(data)
	bad[500] ^= 1
	for off := uint64(0); off < 1000; off += 300 {
		b.add(off, bad[off:min(off+300, 1000)])
	}
	if err := b.verify(); !errors.Is(err, ErrTransfer) {
		t.Errorf("corrupt verify: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); !errors.Is(err, ErrConfig) {
		t.Fatalf("no identity: %v", err)
	}
	c.Identity = testIdentity(t, 1)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(*Config){
		"chunk":    func(c *Config) { c.ChunkSize = MaxFrameSize },
		"water":    func(c *Config) { c.HighWater = c.LowWater },
		"ttl":      func(c *Config) { c.RouteTTL = MaxRouteHops + 1 },
		"connect":  func(c *Config) { c.ConnectTimeout = c.GatherTimeout },
		"queue":    func(c *Config) { c.QueueFrames = 0 },
		"spaces":   func(c *Config) { c.Spaces = 0 },
		"control":  func(c *Config) { c.MaxControlPayload = MaxFrameSize },
		"incoming": func(c *Config) { c.MaxIncoming = 0 },
		"ice":      func(c *Config) { c.ICEServers = []signal.ICEServer{{URLs: []string{"http://x"}}} },
	} {
		d := c
		mut(&d)
		if err := d.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestPacer(t *testing.T) {
	c := DefaultConfig()
	now := time.Unix(0, 0)
	p := newPacer(c)
	p.start, p.now = now, func() time.Time { return now }
	if got := p.limit(0); got != float64(c.LowWater) {
		t.Fatalf("initial limit %v, want LowWater", got)
	}
	// Fast: 40 MB drained in a second: limited by HighWater.
	p.sent(40e6 + 1<<20)
	now = now.Add(time.Second)
	if got := p.limit(1 << 20); got != float64(c.HighWater) {
		t.Errorf("fast limit %v, want HighWater", got)
	}
	// Slow: 1 MB drained in a second: a quarter second's worth.
	q := newPacer(c)
	q.start, q.now = now, func() time.Time { return now }
	q.sent(1e6 + 512<<10)
	now = now.Add(time.Second)
	if got, want := q.limit(512<<10), 1e6*c.MaxQueueDelay.Seconds(); got != want {
		t.Errorf("slow limit %v, want %v", got, want)
	}
	if !q.wait(512<<10) || q.wait(200<<10) {
		t.Errorf("slow wait wrong")
	}
	// Starved: nearly nothing drained: two chunks.
	r := newPacer(c)
	r.start, r.now = now, func() time.Time { return now }
	r.sent(1<<20 + 1000)
	now = now.Add(time.Second)
	if got := r.limit(1 << 20); got != float64(2*c.ChunkSize) {
		t.Errorf("starved limit %v, want two chunks", got)
	}
}
