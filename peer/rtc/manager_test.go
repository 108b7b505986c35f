package rtc

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Real pion WebRTC over 127.0.0.1; signalling through an in-process
// signalling server (bootstrap) and then through the peers themselves.

func TestBootstrapConnectAndMessage(t *testing.T) {
	sig := startSignal(t)
	a := newTestPeer(t, sig, 1, nil)
	b := newTestPeer(t, sig, 2, nil) // its welcome lists a as a contact
	start := time.Now()
	if err := b.Send(a.ID(), []byte("hello a")); err != nil {
		t.Fatal(err)
	}
	if err := b.SendApp(a.ID(), []byte("app")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "a to hear b", func() bool { return len(a.messages(b.ID())) == 2 })
	t.Logf("first connection and message in %v", time.Since(start).Round(time.Millisecond))
	a.with(func() {
		if a.msgs[0].Kind != KindOverlay || string(a.msgs[0].Data) != "hello a" || a.msgs[1].Kind != KindApp {
			t.Errorf("got %v %q, %v", a.msgs[0].Kind, a.msgs[0].Data, a.msgs[1].Kind)
		}
	})
	if err := a.Send(b.ID(), []byte("hello b")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "b to hear a", func() bool { return len(b.messages(a.ID())) == 1 })
	if s := a.Stats(); s.Open != 1 || s.Refused() != 0 {
		t.Errorf("a stats %+v", s)
	}
}

func TestRoutedSignallingWithoutServer(t *testing.T) {
	sig, a, b, c := star(t)
	sig.stop() // from now on signalling goes through the peers
	start := time.Now()
	if err := b.Send(c.ID(), []byte("via the overlay")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "c to hear b", func() bool { return len(c.messages(b.ID())) == 1 })
	t.Logf("routed connection in %v", time.Since(start).Round(time.Millisecond))
	if s := a.Stats(); s.SignalsForwarded < 2 {
		t.Errorf("a forwarded %d signals, want the offer and the answer", s.SignalsForwarded)
	}
	if s := c.Stats(); s.SignalsDelivered < 1 || s.SessionsAccepted < 1 {
		t.Errorf("c stats %+v", s)
	}
}

// A peer that answered a newcomer's bootstrap offer through the server
// later reconnects to it through the overlay: the server, still up,
// refuses relays once the newcomer's window has closed. (Offering through
// the server again left the two unconnected: each offer timed out while
// it won the glare against the newcomer's own offers.)
func TestReconnectAfterBootstrapGoesThroughTheOverlay(t *testing.T) {
	sig, a, b, c := star(t)
	if err := b.Send(c.ID(), []byte("hi c")); err != nil { // routed through a
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "c to hear b", func() bool { return len(c.messages(b.ID())) == 1 })

	a.mu.Lock() // testPeer.mu: logs
	a.logs = nil
	a.mu.Unlock()
	a.Manager.mu.Lock()
	ab := a.connLocked(b.ID())
	a.Manager.mu.Unlock()
	a.fail(ab, "closed by the test")
	waitFor(t, 10*time.Second, "b to see a-b close", func() bool { return !b.connected(a.ID()) })
	a.NoteRoute(b.ID(), c.ID())
	start := time.Now()
	if err := a.Send(b.ID(), []byte("again")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 6*time.Second, "b to hear a again", func() bool { return len(b.messages(a.ID())) == 1 })
	t.Logf("reconnected in %v", time.Since(start).Round(time.Millisecond))
	if n := sig.srv.Stats().Refusals[signal.CodeNotAllowed]; n != 0 {
		t.Errorf("the server refused %d relays", n)
	}
}

// An offer routed through a neighbour whose connection then closes can
// get no answer (answers come back along the offer's path): the attempt
// fails at once instead of at ConnectTimeout, and without back-off.
func TestOfferFailsWhenItsPathCloses(t *testing.T) {
	sig, a, b, c := star(t)
	sig.stop()
	c.Manager.Close() // c is gone: b's offer to it goes to a and no further
	if err := b.Send(c.ID(), []byte("lost")); err != nil {
		t.Fatal(err)
	}
	// The offer is under way through a (that it stays so until the path
	// closes, however long, is policy: testdata/orphaned-offers.txt).
	waitFor(t, 5*time.Second, "b's offer to c to leave through a", func() bool {
		b.Manager.mu.Lock()
		defer b.Manager.mu.Unlock()
		l := b.core.current(c.ID())
		return l != nil && l.signalVia == a.ID()
	})
	a.Manager.mu.Lock()
	ab := a.connLocked(b.ID())
	a.Manager.mu.Unlock()
	start := time.Now()
	a.fail(ab, "closed by the test")
	waitFor(t, 4*time.Second, "b's attempt to c to fail (ConnectTimeout is 8 s)", func() bool { return b.Stats().ConnectsFailed == 1 })
	t.Logf("failed %v after its path closed", time.Since(start).Round(time.Millisecond))
	b.Manager.mu.Lock()
	_, backoff := b.core.backoff[c.ID()]
	b.Manager.mu.Unlock()
	if backoff {
		t.Error("b backs off from c after an attempt that lost its path")
	}
}

// A newcomer connecting to two contacts through the server at once tells
// the server it is connected (closing its relay window) only when neither
// session is still under way: both connect, and no relay is refused.
func TestBootstrapToTwoContactsAtOnce(t *testing.T) {
	sig := startSignal(t)
	a, b := pairOn(t, sig, nil)
	c := newTestPeer(t, sig, 3, nil) // contacts a and b
	for _, p := range []*testPeer{a, b} {
		if err := c.Send(p.ID(), []byte("hi")); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 5*time.Second, "c connected to a and b", func() bool { return c.connected(a.ID()) && c.connected(b.ID()) })
	if n := sig.srv.Stats().Refusals[signal.CodeNotAllowed]; n != 0 {
		t.Errorf("the server refused %d relays", n)
	}
}

func TestCrumbsReachAPeerOnlyItsContactKnows(t *testing.T) {
	sig := startSignal(t)
	a, b := pairOn(t, sig, nil)
	c := newTestPeer(t, sig, 3, nil) // contacts a and b; connects to a only
	if err := c.Send(a.ID(), []byte("hi")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "a-c", func() bool { return a.connected(c.ID()) })
	sig.stop()
	// b learns that c's messages arrive through a (as the overlay's
	// Discover for a joiner does) and reaches c that way.
	b.NoteRoute(c.ID(), a.ID())
	if err := b.Send(c.ID(), []byte("found you")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "c to hear b", func() bool { return len(c.messages(b.ID())) == 1 })
}

func TestUnreachableFailsAndBacksOff(t *testing.T) {
	a := newTestPeer(t, nil, 1, nil)
	nobody := oid(testIdentity(t, 9))
	if err := a.Send(nobody, []byte("x")); err != nil {
		t.Fatalf("first send queues: %v", err)
	}
	waitFor(t, 5*time.Second, "the attempt to fail", func() bool { return a.Stats().ConnectsFailed == 1 })
	if err := a.Send(nobody, []byte("x")); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("send while backing off: %v", err)
	}
}

// star starts a signalling server and peers a, b and c; b and c
// bootstrap through a (the server lists a to both) and are connected to
// it, not to each other.
func star(t *testing.T) (sig *sigServer, a, b, c *testPeer) {
	sig = startSignal(t)
	a = newTestPeer(t, sig, 1, nil)
	b = newTestPeer(t, sig, 2, nil)
	c = newTestPeer(t, sig, 3, nil)
	for _, p := range []*testPeer{b, c} {
		if err := p.Send(a.ID(), []byte("hi")); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 10*time.Second, "a connected to b and c", func() bool { return a.connected(b.ID()) && a.connected(c.ID()) })
	return sig, a, b, c
}

// pair connects two fresh peers through a signalling server.
func pair(t *testing.T, mutate func(*Config)) (a, b *testPeer) {
	return pairOn(t, startSignal(t), mutate)
}

// pairOn connects two fresh peers (seeds 1 and 2) through sig.
func pairOn(t *testing.T, sig *sigServer, mutate func(*Config)) (a, b *testPeer) {
	a = newTestPeer(t, sig, 1, mutate)
	b = newTestPeer(t, sig, 2, mutate)
	if err := b.Send(a.ID(), []byte("hi")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "connection", func() bool { return len(a.messages(b.ID())) == 1 && b.connected(a.ID()) })
	return a, b
}

func testModel(n int) []byte {
	data := make([]byte, n)
	x := uint32(1)
	for i := range data {
		x = x*1664525 + 1013904223
		data[i] = byte(x >> 24)
	}
	return data
}

func TestTransfer20MB(t *testing.T) {
	a, b := pair(t, nil)
	data := testModel(20 << 20)
	fp, task := [32]byte{7}, [32]byte{8}
	var maxBuffered uint64
	a.hooks.chunk = func(_, _ uint64, d []byte) ([]byte, bool) {
		a.Manager.mu.Lock()
		c := a.connLocked(b.ID())
		a.Manager.mu.Unlock()
		if c != nil && c.dc != nil {
			maxBuffered = max(maxBuffered, c.dc.BufferedAmount())
		}
		return d, false
	}
	start := time.Now()
	h, err := a.SendTransfer(b.ID(), []byte("meta"), data, fp, task)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "the transfer", func() bool {
		var done bool
		b.with(func() { done = len(b.xfers) > 0 })
		return done
	})
	el := time.Since(start)
	waitFor(t, 5*time.Second, "the sender's ack", func() bool {
		var ok bool
		a.with(func() { ok = len(a.sent) == 1 && a.sent[0].Handle == h })
		return ok
	})
	b.with(func() {
		ev := b.xfers[0]
		if !bytes.Equal(ev.Data, data) || ev.Manifest.Fingerprint != fp || ev.Manifest.Task != task || string(ev.Manifest.Meta) != "meta" || ev.Peer != a.ID() {
			t.Errorf("received %d bytes (sha %x), meta %q", len(ev.Data), sha256.Sum256(ev.Data), ev.Manifest.Meta)
		}
	})
	t.Logf("20 MiB in %v (%.1f MB/s), max buffered %d KiB (high water %d KiB)", el.Round(time.Millisecond),
		float64(len(data))/el.Seconds()/1e6, maxBuffered>>10, a.cfg.HighWater>>10)
	if maxBuffered > uint64(a.cfg.HighWater+a.cfg.ChunkSize+1024) {
		t.Errorf("flow control let %d bytes pile up", maxBuffered)
	}
	// Control traffic still flows during and after.
	if err := b.Send(a.ID(), []byte("thanks")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "control after transfer", func() bool { return len(a.messages(b.ID())) == 2 })
}

func TestTransferCorruptedIsRetried(t *testing.T) {
	a, b := pair(t, nil)
	data := testModel(1<<20 + 123)
	var corrupted int
	a.hooks.chunk = func(tid, off uint64, d []byte) ([]byte, bool) {
		if off == 65536 && corrupted == 0 { // the first attempt only
			corrupted++
			d = bytes.Clone(d)
			d[10] ^= 0xff
		}
		return d, false
	}
	if _, err := a.SendTransfer(b.ID(), nil, data, [32]byte{}, [32]byte{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the retried transfer", func() bool {
		var ok bool
		a.with(func() { ok = len(a.sent) == 1 })
		return ok
	})
	b.with(func() {
		if len(b.xfers) != 1 || !bytes.Equal(b.xfers[0].Data, data) {
			t.Errorf("received %d transfers", len(b.xfers))
		}
	})
	if s := b.Stats(); s.HashMismatches != 1 || s.TransfersReceived != 1 {
		t.Errorf("receiver stats: %d mismatches, %d received", s.HashMismatches, s.TransfersReceived)
	}
	if s := a.Stats(); s.TransferRetries != 1 || s.TransfersSent != 1 {
		t.Errorf("sender stats: %d retries, %d sent", s.TransferRetries, s.TransfersSent)
	}
}

func TestTransferCutMidwayIsNotApplied(t *testing.T) {
	short := func(c *Config) { c.TransferTimeout = 1500 * time.Millisecond; c.TransferRetries = 1 }
	a, b := pair(t, short)
	data := testModel(4 << 20)
	a.hooks.chunk = func(_, off uint64, d []byte) ([]byte, bool) { return d, off >= 2<<20 } // every attempt stops half-way
	h, err := a.SendTransfer(b.ID(), nil, data, [32]byte{}, [32]byte{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 15*time.Second, "the sender to give up", func() bool {
		var ok bool
		a.with(func() { ok = len(a.failed) == 1 && a.failed[0].Handle == h && errors.Is(a.failed[0].Err, ErrTransfer) })
		return ok
	})
	waitFor(t, 5*time.Second, "the receiver to drop both attempts", func() bool { return b.Stats().TransfersFailedIn == 2 })
	b.with(func() {
		if len(b.xfers) != 0 {
			t.Errorf("a cut transfer was delivered")
		}
	})
	if s := a.Stats(); s.TransfersFailedOut != 1 || s.TransferRetries != 1 {
		t.Errorf("sender stats %+v", s)
	}
}

func TestTransferCutByClosedConnectionIsNotApplied(t *testing.T) {
	a, b := pair(t, nil)
	data := testModel(8 << 20)
	stop := make(chan struct{})
	a.hooks.chunk = func(_, off uint64, d []byte) ([]byte, bool) {
		if off == 3<<20 {
			close(stop)
			<-a.ctx.Done() // hold the sender here until Close has begun
		}
		return d, false
	}
	if _, err := a.SendTransfer(b.ID(), nil, data, [32]byte{}, [32]byte{}); err != nil {
		t.Fatal(err)
	}
	<-stop
	a.Close() // the sender goes away mid-transfer
	waitFor(t, 15*time.Second, "b to notice", func() bool {
		var down bool
		b.with(func() { down = b.downs[a.ID()] > 0 })
		return down
	})
	// Events come in order per peer, and the transfer could not have
	// completed before a's EventDown: its last 5 MiB were never sent.
	b.with(func() {
		if len(b.xfers) != 0 {
			t.Errorf("a cut transfer was delivered")
		}
	})
	if s := b.Stats(); s.TransfersReceived != 0 {
		t.Errorf("received %d transfers", s.TransfersReceived)
	}
}

func TestTransferRefused(t *testing.T) {
	a, b := pair(t, func(c *Config) { c.Task = [32]byte{1}; c.MaxTransferBytes = 1 << 20; c.TransferRetries = 0 })
	if _, err := a.SendTransfer(b.ID(), nil, testModel(100), [32]byte{}, [32]byte{2}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "refusal", func() bool {
		var ok bool
		a.with(func() { ok = len(a.failed) == 1 })
		return ok
	})
	if s := b.Stats(); s.TransfersRefused != 1 {
		t.Errorf("refused %d", s.TransfersRefused)
	}
	if _, err := a.SendTransfer(b.ID(), nil, testModel(2<<20), [32]byte{}, [32]byte{1}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized transfer: %v", err)
	}
}

// TestRefusesBadFrames sends, over a real data channel, frames that must
// be refused and counted without harming the connection.
func TestRefusesBadFrames(t *testing.T) {
	a, b := pair(t, nil)
	other := testIdentity(t, 5)
	to := b.ID()
	good := func(seq uint64, payload string) []byte {
		f, err := AppendControl(nil, a.cfg.Identity, to, KindOverlay, seq, []byte(payload))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	forged, _ := AppendControl(nil, other, to, KindOverlay, a.seq.Add(1), []byte("forged")) // signed by someone else
	wrongTo, _ := AppendControl(nil, a.cfg.Identity, oid(other), KindOverlay, a.seq.Add(1), []byte("for another peer"))
	unsigned := good(a.seq.Add(1), "unsigned")
	copy(unsigned[len(unsigned)-64:], make([]byte, 64))
	replayed := good(a.seq.Add(1), "once")
	v2 := good(a.seq.Add(1), "v2")
	v2[0] = 2
	unknown := good(a.seq.Add(1), "kind")
	unknown[2] = 200
	big := good(a.seq.Add(1), string(make([]byte, a.cfg.MaxControlPayload+1)))
	old := good(a.seq.Load()-ReplayWindow-10, "too old")
	badEnvelope, _ := AppendControl(nil, a.cfg.Identity, to, KindSignal, a.seq.Add(1), []byte{1, 2, 3})
	badManifest, _ := AppendControl(nil, a.cfg.Identity, to, KindManifest, a.seq.Add(1), []byte{1})
	frames := []struct {
		name string
		f    []byte
	}{
		{"garbage", []byte{1, 1, 5, 0, 0}},
		{"empty-ish", []byte{1}},
		{"forged", forged},
		{"for another peer", wrongTo},
		{"unsigned", unsigned},
		{"replayed first", replayed},
		{"replayed again", replayed},
		{"version 2", v2},
		{"unknown kind", unknown},
		{"oversized", big},
		{"older than the window", old},
		{"bad envelope", badEnvelope},
		{"bad manifest", badManifest},
		{"stray chunk", mustChunk(t, 12345, 0, []byte("x"))},
	}
	before := b.Stats()
	for _, fr := range frames {
		if err := a.sendFrame(to, fr.f, false, false); err != nil {
			t.Fatalf("%s: %v", fr.name, err)
		}
	}
	if err := a.Send(to, []byte("still fine")); err != nil {
		t.Fatal(err)
	}
	// The overlay message may overtake the rest: it goes on the unordered
	// channel (ctlchannel.go).
	waitFor(t, 5*time.Second, "the good messages", func() bool { return len(b.messages(a.ID())) == 2 })
	if m := b.messages(a.ID()); !slices.Contains(m, "once") || !slices.Contains(m, "still fine") {
		t.Errorf("messages %q", m)
	}
	// The good overlay message may arrive before the ordered channel's
	// last bad frames are refused: wait (bounded) for the counts.
	want := Stats{BadSignature: 3, Replayed: 2, BadVersion: 1, Oversized: 1, UnknownKind: 1, Malformed: 4, StrayChunks: 1}
	var s, d Stats
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		s = b.Stats()
		d = Stats{
			BadSignature: s.BadSignature - before.BadSignature, Replayed: s.Replayed - before.Replayed,
			BadVersion: s.BadVersion - before.BadVersion, Oversized: s.Oversized - before.Oversized,
			UnknownKind: s.UnknownKind - before.UnknownKind, Malformed: s.Malformed - before.Malformed,
			StrayChunks: s.StrayChunks - before.StrayChunks,
		}
		if d == want || time.Now().After(deadline) {
			break
		}
	}
	if d != want {
		t.Errorf("refusals\n got %+v\nwant %+v", d, want)
	}
	if !b.connected(a.ID()) || s.Open != 1 {
		t.Errorf("the connection did not survive")
	}
	t.Logf("refused: %s", fmt.Sprintf("%+v", d))
}

func mustChunk(t *testing.T, tid, off uint64, d []byte) []byte {
	f, err := AppendChunk(nil, tid, off, d)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestStraysClosedAfterGrace(t *testing.T) {
	a, b := pair(t, func(c *Config) { c.Grace = 500 * time.Millisecond })
	// That a neighbour's connection stays, and a stray's stays for
	// Grace, is policy on virtual time (testdata/strays.txt); here the
	// real one closes, on both sides, no sooner than Grace.
	a.SetNeighbors([]ident.Peer{b.ID()})
	b.SetNeighbors([]ident.Peer{a.ID()})
	start := time.Now()
	a.SetNeighbors(nil)
	waitFor(t, 5*time.Second, "the stray to close on both sides", func() bool {
		return !a.connected(b.ID()) && !b.connected(a.ID())
	})
	if el := time.Since(start); el < a.cfg.Grace {
		t.Errorf("the stray closed %v after it strayed, before its grace of %v", el, a.cfg.Grace)
	}
	if s := a.Stats(); s.StraysClosed != 1 {
		t.Errorf("strays closed %d", s.StraysClosed)
	}
}
