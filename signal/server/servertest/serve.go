package servertest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// Server is what Serve runs: *server.Server and *http.Server are both.
type Server interface {
	Serve(net.Listener) error
	Shutdown(context.Context) error
}

// ShutdownTimeout bounds the shutdown at cleanup: generous, because a
// loaded 2-core CI machine can take seconds to close websockets, and a
// shutdown that does not finish at all still fails the test.
const ShutdownTimeout = 15 * time.Second

// Serve serves srv on a fresh 127.0.0.1 port and returns its host:port
// and stop, which shuts srv down and waits for Serve to return. A test
// may call stop to take the server away mid-test; cleanup calls it in
// any case (it runs once). An error from Shutdown or Serve fails the
// test, so a server that does not stop cleanly is noticed.
func Serve(t testing.TB, srv Server) (addr string, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
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
	}
	t.Cleanup(stop)
	return ln.Addr().String(), stop
}

// SignalURL is the websocket URL of the signalling server at addr.
func SignalURL(addr string) string { return "ws://" + addr + "/signal" }
