package servertest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"
)

// Server is what Serve runs: *server.Server and *http.Server are both.
type Server interface {
	Serve(net.Listener) error
	Shutdown(context.Context) error
}

// ShutdownTimeout bounds the shutdown at cleanup.
const ShutdownTimeout = 5 * time.Second

// Serve serves srv on a fresh 127.0.0.1 port and returns its host:port.
// At cleanup it shuts srv down and waits for Serve to return; an error
// from either fails the test, so a server that does not stop cleanly is
// noticed.
func Serve(t testing.TB, srv Server) (addr string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
			return // Serve may not have returned
		}
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// SignalURL is the websocket URL of the signalling server at addr.
func SignalURL(addr string) string { return "ws://" + addr + "/signal" }
