package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server/servertest"
	"github.com/peerlearn/peerlearn/types/ident"
)

// testServer is a Server serving on a loopback listener.
type testServer struct {
	*Server
	addr string // host:port
	tid  ident.Task
	logs *logBuffer
}

func (ts *testServer) wsURL() string   { return servertest.SignalURL(ts.addr) }
func (ts *testServer) httpURL() string { return "http://" + ts.addr }

// logBuffer collects log lines (safe for concurrent use).
type logBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (l *logBuffer) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) < 1000 {
		l.lines = append(l.lines, fmt.Sprintf(format, args...))
	}
}

// all returns the lines so far.
func (l *logBuffer) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// startServer serves a one-task server (task "test") on 127.0.0.1 with
// short timeouts, after mutate; it is shut down at cleanup.
func startServer(t *testing.T, mutate func(*Config)) *testServer {
	t.Helper()
	spec, _ := servertest.Task(t, "test")
	logs := &logBuffer{}
	cfg := DefaultConfig()
	cfg.Tasks = []task.Spec{spec}
	cfg.HandshakeTimeout = 2 * time.Second
	cfg.IdleTimeout = 5 * time.Second
	cfg.WriteTimeout = 2 * time.Second
	cfg.BootstrapTimeout = 5 * time.Second
	cfg.Logf = logs.logf
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tid, err := cfg.Tasks[0].ID() // mutate may have changed the spec
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := servertest.Serve(t, s)
	return &testServer{Server: s, addr: addr, tid: tid, logs: logs}
}

// clientConfig has short timeouts for tests.
func clientConfig() signal.ClientConfig {
	c := signal.DefaultClientConfig()
	c.HandshakeTimeout = 3 * time.Second
	c.PingInterval = 1 * time.Second
	c.ReadTimeout = 10 * time.Second
	c.WriteTimeout = 2 * time.Second
	return c
}

// identity returns a deterministic identity.
func identity(t testing.TB, b byte) signal.Identity {
	t.Helper()
	seed := make([]byte, 32)
	seed[0], seed[31] = b, 0xaa
	id, err := signal.IdentityFromSeed(seed)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// dial registers identity b with the test task; closed at cleanup.
func dial(t *testing.T, ts *testServer, b byte) *signal.Client {
	t.Helper()
	c, err := signal.Dial(context.Background(), ts.wsURL(), identity(t, b), ts.tid, clientConfig())
	if err != nil {
		t.Fatalf("dial %d: %v", b, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// nextEvent waits up to 3 s for c's next event.
func nextEvent(t *testing.T, c *signal.Client) signal.Event {
	t.Helper()
	select {
	case ev, ok := <-c.Events():
		if !ok {
			t.Fatalf("events closed: %v", c.Err())
		}
		return ev
	case <-time.After(3 * time.Second):
		t.Fatal("no event in 3 s")
	}
	return signal.Event{}
}

// wantRefusal waits for a refusal event with code.
func wantRefusal(t *testing.T, c *signal.Client, code signal.Code) {
	t.Helper()
	ev := nextEvent(t, c)
	if ev.Refusal == nil || ev.Refusal.Code != code {
		t.Fatalf("got %+v (relay %+v), want refusal %v", ev.Refusal, ev.Relay, code)
	}
}

// raw is a hand-driven websocket for misbehaving clients.
type raw struct {
	t    *testing.T
	conn *websocket.Conn
}

// dialRaw opens a websocket with optional headers; closed at cleanup.
func dialRaw(t *testing.T, ts *testServer, h http.Header) (*raw, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, ts.wsURL(), &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		return nil, resp, err
	}
	conn.SetReadLimit(signal.MaxMessageSize)
	t.Cleanup(func() { conn.CloseNow() })
	return &raw{t: t, conn: conn}, resp, nil
}

// read reads one message (3 s at most); the error is the read error.
func (r *raw) read() (*signal.Message, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, b, err := r.conn.Read(ctx)
	if err != nil {
		return nil, err
	}
	m, err := signal.Decode(b)
	if err != nil {
		r.t.Fatalf("server sent a bad message %s: %v", b, err)
	}
	return m, nil
}

func (r *raw) mustReadAny() *signal.Message {
	r.t.Helper()
	m, err := r.read()
	if err != nil {
		r.t.Fatalf("read: %v", err)
	}
	return m
}

func (r *raw) mustRead(want signal.MsgType) *signal.Message {
	r.t.Helper()
	m := r.mustReadAny()
	if m.Type != want {
		r.t.Fatalf("got %v %+v, want %v", m.Type, m.Error, want)
	}
	return m
}

func (r *raw) write(b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return r.conn.Write(ctx, websocket.MessageText, b)
}

func (r *raw) send(m *signal.Message) error {
	b, err := signal.Encode(m)
	if err != nil {
		r.t.Fatal(err)
	}
	return r.write(b)
}

// register runs the handshake as identity b and returns the welcome.
func (r *raw) register(tid ident.Task, b byte) *signal.Welcome {
	r.t.Helper()
	ch := r.mustRead(signal.MsgChallenge)
	if err := r.send(&signal.Message{Type: signal.MsgHello, Hello: signal.SignHello(identity(r.t, b), ch.Challenge.Nonce, tid)}); err != nil {
		r.t.Fatal(err)
	}
	return r.mustRead(signal.MsgWelcome).Welcome
}

// wantClosed reads until the connection ends (3 s at most) and returns
// the error messages seen and the close status.
func (r *raw) wantClosed() ([]signal.Code, websocket.StatusCode) {
	r.t.Helper()
	var codes []signal.Code
	for range 1000 {
		m, err := r.read()
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				r.t.Fatal("connection still open after 3 s")
			}
			return codes, websocket.CloseStatus(err)
		}
		if m.Type == signal.MsgError {
			codes = append(codes, m.Error.Code)
		}
	}
	r.t.Fatal("connection not closed after 1000 messages")
	return nil, 0
}

// eventually polls cond every 10 ms for up to 3 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond) // bounded polling of state the server's goroutines change
	}
}
