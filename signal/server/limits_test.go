package server

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// A flood of 200 messages is rate-limited: about Burst get through, the
// rest are dropped and counted, and the peer hears about it at most once a
// second; the connection survives when MaxStrikes allows.
func TestFloodRateLimited(t *testing.T) {
	ts := startServer(t, func(c *Config) {
		c.MessagesPerSecond, c.Burst, c.MaxStrikes = 10, 20, 1000
	})
	r, _, err := dialRaw(t, ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.register(ts.tid, 1)
	const flood = 200
	start := time.Now()
	for range flood {
		if err := r.send(&signal.Message{Type: signal.MsgPing}); err != nil {
			t.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	// Expect the pongs for the admitted pings (the hello took one of
	// the 20 tokens) and the rate-limit notices.
	admitted := 19 + int(elapsed.Seconds()*10) + 1
	// A marker after a pause (for a token): a relay to a stranger,
	// refused as not-allowed, ends the replies to the flood.
	time.Sleep(150 * time.Millisecond)
	if err := r.send(&signal.Message{Type: signal.MsgRelay, Relay: &signal.Relay{To: identity(t, 9).ID(), Kind: signal.RelayOffer, Data: "x"}}); err != nil {
		t.Fatal(err)
	}
	pongs, notices := 0, 0
	for {
		m := r.mustReadAny()
		if m.Type == signal.MsgError && m.Error.Code == signal.CodeNotAllowed {
			break
		}
		switch {
		case m.Type == signal.MsgPong:
			pongs++
		case m.Type == signal.MsgError && m.Error.Code == signal.CodeRateLimited:
			notices++
		default:
			t.Fatalf("unexpected %v", m.Type)
		}
	}
	dropped := ts.Stats().Refusals[signal.CodeRateLimited]
	if pongs < 19 || pongs > admitted || int(dropped) != flood-pongs {
		t.Fatalf("%d pongs (19 tokens left, at most %d), %d dropped of %d", pongs, admitted, dropped, flood)
	}
	if notices < 1 || notices > int(elapsed.Seconds())+2 {
		t.Fatalf("%d rate-limit notices in %v", notices, elapsed)
	}
	// The connection survived the flood.
	time.Sleep(150 * time.Millisecond) // a token
	if err := r.send(&signal.Message{Type: signal.MsgPing}); err != nil {
		t.Fatal(err)
	}
	r.mustRead(signal.MsgPong)
}

// With the default MaxStrikes a flooding connection is closed, and the
// server keeps serving others.
func TestFloodDisconnects(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.MessagesPerSecond, c.Burst, c.MaxStrikes = 10, 20, 50 })
	good := dial(t, ts, 1)
	r, _, err := dialRaw(t, ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.register(ts.tid, 2)
	for range 200 {
		if r.send(&signal.Message{Type: signal.MsgPing}) != nil {
			break // closed by the server
		}
	}
	codes, status := r.wantClosed()
	if status != websocket.StatusPolicyViolation || !slices.Contains(codes, signal.CodeTooManyErrors) {
		t.Fatalf("close status %v, errors %v", status, codes)
	}
	st := ts.Stats()
	if st.Refusals[signal.CodeRateLimited] != 50 || st.Refusals[signal.CodeTooManyErrors] != 1 {
		t.Fatalf("refusals %v", st.Refusals)
	}
	eventually(t, "the flooder to be dropped", func() bool { return ts.Stats().Peers[ts.tid] == 1 })
	// good still works: a newcomer relays to it.
	n := dial(t, ts, 3)
	if err := n.Send(context.Background(), good.ID(), signal.RelayOffer, "offer"); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, good); ev.Relay == nil || ev.Relay.From != n.ID() {
		t.Fatalf("good got %+v", ev)
	}
}

// Oversized messages close their connection, malformed ones are refused
// with an error, both counted, while other peers are served throughout.
func TestOversizedAndMalformed(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.MaxMessageSize = 4096 })
	a := dial(t, ts, 1)

	big, _, err := dialRaw(t, ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	big.register(ts.tid, 2)
	_ = big.write([]byte(`{"v":1,"type":6,"bye":{"reason":"` + strings.Repeat("x", 100<<10) + `"}}`))
	if _, status := big.wantClosed(); status != websocket.StatusMessageTooBig {
		t.Fatalf("oversized: close status %v", status)
	}

	bad, _, err := dialRaw(t, ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	bad.register(ts.tid, 3)
	inputs := []string{
		`{"v":1,"type":4}`,                    // relay without payload
		`{"v":1,"type":4,"relay":{"kind":1}}`, // no receiver
		`not json`,                            // garbage
		`{"v":1,"type":8,"extra":true}`,       // unknown field
		`{"v":1,"type":2,"hello":{}}`,         // malformed hello
		`{"v":1,"type":4,"relay":{"to":"00","kind":1,"data":"x"}}`, // short ID
	}
	for _, in := range inputs {
		if err := bad.write([]byte(in)); err != nil {
			t.Fatal(err)
		}
		if m := bad.mustRead(signal.MsgError); m.Error.Code != signal.CodeMalformed {
			t.Fatalf("%s: code %v", in, m.Error.Code)
		}
	}
	// A binary message and a message type clients may not send.
	if err := bad.conn.Write(context.Background(), websocket.MessageBinary, []byte{1, 2}); err != nil {
		t.Fatal(err)
	}
	if m := bad.mustRead(signal.MsgError); m.Error.Code != signal.CodeMalformed {
		t.Fatalf("binary: %v", m.Error.Code)
	}
	if err := bad.send(&signal.Message{Type: signal.MsgPong}); err != nil {
		t.Fatal(err)
	}
	if m := bad.mustRead(signal.MsgError); m.Error.Code != signal.CodeUnexpected {
		t.Fatalf("pong from a client: %v", m.Error.Code)
	}
	// Still connected and served.
	if err := bad.send(&signal.Message{Type: signal.MsgPing}); err != nil {
		t.Fatal(err)
	}
	bad.mustRead(signal.MsgPong)

	// Another protocol version: refused and closed.
	if err := bad.write([]byte(`{"v":2,"type":8}`)); err != nil {
		t.Fatal(err)
	}
	if codes, _ := bad.wantClosed(); !slices.Equal(codes, []signal.Code{signal.CodeVersion}) {
		t.Fatalf("version: %v", codes)
	}

	// The oversized message is counted by its session's goroutine after
	// the websocket library has closed with 1009, which the client may
	// see first (CI saw the count at 0 here once): wait for it.
	eventually(t, "the oversized message counted", func() bool { return ts.Stats().Refusals[signal.CodeTooLarge] >= 1 })
	st := ts.Stats()
	if st.Refusals[signal.CodeTooLarge] != 1 || st.Refusals[signal.CodeMalformed] != int64ish(len(inputs)+1) ||
		st.Refusals[signal.CodeUnexpected] != 1 || st.Refusals[signal.CodeVersion] != 1 {
		t.Fatalf("refusals %v", st.Refusals)
	}
	// a was served throughout.
	n := dial(t, ts, 4)
	if err := n.Send(context.Background(), a.ID(), signal.RelayOffer, "offer"); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, a); ev.Relay == nil {
		t.Fatalf("a got %+v", ev)
	}
}

func int64ish(n int) uint64 { return uint64(n) }

// Hellos that do not prove key ownership are refused and counted.
func TestBadSignatures(t *testing.T) {
	ts := startServer(t, nil)
	other := identity(t, 9)
	cases := map[string]func(h *signal.Hello, nonce []byte){
		"signature over another nonce": func(h *signal.Hello, nonce []byte) {
			*h = *signal.SignHello(identity(t, 1), make([]byte, signal.NonceSize), ts.tid)
		},
		"flipped signature bit": func(h *signal.Hello, nonce []byte) { h.Signature[5] ^= 0x10 },
		"another peer's key":    func(h *signal.Hello, nonce []byte) { h.PublicKey = other.PublicKey() },
		"claims another ID":     func(h *signal.Hello, nonce []byte) { h.ID = other.ID() },
		"signed for another task": func(h *signal.Hello, nonce []byte) {
			*h = *signal.SignHello(identity(t, 1), nonce, ident.Task{1, 2, 3})
			h.Task = ts.tid
		},
	}
	for name, mutate := range cases {
		r, _, err := dialRaw(t, ts, nil)
		if err != nil {
			t.Fatal(err)
		}
		nonce := r.mustRead(signal.MsgChallenge).Challenge.Nonce
		h := signal.SignHello(identity(t, 1), nonce, ts.tid)
		mutate(h, nonce)
		if err := r.send(&signal.Message{Type: signal.MsgHello, Hello: h}); err != nil {
			t.Fatal(err)
		}
		if codes, status := r.wantClosed(); !slices.Equal(codes, []signal.Code{signal.CodeBadSignature}) || status != websocket.StatusPolicyViolation {
			t.Errorf("%s: errors %v, status %v", name, codes, status)
		}
	}
	st := ts.Stats()
	if st.Refusals[signal.CodeBadSignature] != uint64(len(cases)) || st.Peers[ts.tid] != 0 || st.Registrations != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// Handshake refusals: unknown task, full task, a message other than hello,
// no hello in time; the client returns a *Refusal.
func TestHandshakeRefusals(t *testing.T) {
	ts := startServer(t, func(c *Config) {
		c.Tasks[0].MaxPeers = 2
		c.HandshakeTimeout = 300 * time.Millisecond
	})
	ctx := context.Background()
	_, err := signal.Dial(ctx, ts.wsURL(), identity(t, 1), ident.Task{7}, clientConfig())
	if !errors.Is(err, &signal.Refusal{Code: signal.CodeUnknownTask}) {
		t.Fatalf("unknown task: %v", err)
	}
	dial(t, ts, 1)
	dial(t, ts, 2)
	_, err = signal.Dial(ctx, ts.wsURL(), identity(t, 3), ts.tid, clientConfig())
	if !errors.Is(err, &signal.Refusal{Code: signal.CodeTaskFull}) || !errors.Is(err, signal.ErrRefused) {
		t.Fatalf("full task: %v", err)
	}
	r, _, err := dialRaw(t, ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.mustRead(signal.MsgChallenge)
	if err := r.send(&signal.Message{Type: signal.MsgPing}); err != nil {
		t.Fatal(err)
	}
	if codes, _ := r.wantClosed(); !slices.Equal(codes, []signal.Code{signal.CodeUnexpected}) {
		t.Fatalf("ping before hello: %v", codes)
	}
	idle, _, err := dialRaw(t, ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	idle.mustRead(signal.MsgChallenge)
	if codes, status := idle.wantClosed(); status != websocket.StatusPolicyViolation || !slices.Equal(codes, []signal.Code{signal.CodeHandshakeTimeout}) {
		t.Fatalf("silent client: status %v, errors %v", status, codes)
	}
	eventually(t, "the handshake timeout to be counted", func() bool {
		return ts.Stats().Refusals[signal.CodeHandshakeTimeout] == 1
	})
	st := ts.Stats()
	if st.Refusals[signal.CodeUnknownTask] != 1 || st.Refusals[signal.CodeTaskFull] != 1 || st.Refusals[signal.CodeUnexpected] != 1 {
		t.Fatalf("refusals %v", st.Refusals)
	}
	eventually(t, "connections to drop", func() bool { return ts.Stats().Connections == 2 })
}

// A registered peer that sends nothing is closed after IdleTimeout; one
// that pings is not.
func TestIdleTimeout(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.IdleTimeout = 400 * time.Millisecond })
	r, _, err := dialRaw(t, ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.register(ts.tid, 2)
	if codes, status := r.wantClosed(); status != websocket.StatusPolicyViolation || !slices.Equal(codes, []signal.Code{signal.CodeIdleTimeout}) {
		t.Fatalf("idle: status %v, errors %v", status, codes)
	}
	eventually(t, "the idle timeout to be counted", func() bool {
		return ts.Stats().Refusals[signal.CodeIdleTimeout] >= 1
	})
}

// The same peer registering again replaces its older connection.
func TestReplaced(t *testing.T) {
	ts := startServer(t, nil)
	first := dial(t, ts, 1)
	second := dial(t, ts, 1)
	select {
	case <-first.Done():
	case <-time.After(3 * time.Second):
		t.Fatal("first connection not closed")
	}
	if !errors.Is(first.Err(), &signal.Refusal{Code: signal.CodeReplaced}) {
		t.Fatalf("first: %v", first.Err())
	}
	if st := ts.Stats(); st.Peers[ts.tid] != 1 || st.Refusals[signal.CodeReplaced] != 1 {
		t.Fatalf("stats %+v", st)
	}
	select {
	case <-second.Done():
		t.Fatalf("second closed: %v", second.Err())
	default:
	}
}
