package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server/servertest"
)

// Shutdown tells every peer (CodeShutdown), closes their websockets, stops
// the listener, turns /healthz to 503 and returns once all is closed.
func TestGracefulShutdown(t *testing.T) {
	spec, tid := servertest.Task(t, "test")
	cfg := DefaultConfig()
	cfg.Tasks = []task.Spec{spec}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	url := "ws://" + ln.Addr().String() + "/signal"
	var clients []*signal.Client
	for i := range 3 {
		c, err := signal.Dial(context.Background(), url, identity(t, byte(i+1)), tid, clientConfig())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		clients = append(clients, c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("shutdown took %v", d)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	for _, c := range clients {
		select {
		case <-c.Done():
		case <-time.After(3 * time.Second):
			t.Fatal("client not closed")
		}
		if !errors.Is(c.Err(), &signal.Refusal{Code: signal.CodeShutdown}) {
			t.Errorf("client error %v, want a shutdown refusal", c.Err())
		}
	}
	st := s.Stats()
	if st.Connections != 0 || st.Peers[tid] != 0 {
		t.Fatalf("after shutdown: %+v", st)
	}
	// The listener is closed; the handler reports draining.
	if _, err := signal.Dial(context.Background(), url, identity(t, 9), tid, clientConfig()); err == nil {
		t.Fatal("dial after shutdown succeeded")
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("healthz while draining: %d", rec.Code)
	}
	if err := s.Serve(ln); !errors.Is(err, ErrClosed) {
		t.Fatalf("Serve after Shutdown: %v", err)
	}
}

// Shutdown gives up at ctx's deadline and drops what is left.
func TestShutdownDeadline(t *testing.T) {
	ts := startServer(t, nil)
	r, _, err := dialRaw(t, ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.register(ts.tid, 1)
	// r never answers the close frame: it does not read.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = ts.Shutdown(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("Shutdown: %v after %v", err, time.Since(start))
	}
	eventually(t, "connections to be dropped", func() bool { return ts.Stats().Connections == 0 })
}
