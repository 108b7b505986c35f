//go:build !js

package netpeer

import (
	"encoding/json"
	"net"
	"net/http"
	"time"
)

// The status endpoint is native only: a browser tab cannot listen, and
// leaving http.Server out of the wasm build saves about 4 MB.

func listenStatus(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }

// serveStatus serves GET /status (JSON) and GET /metrics (Prometheus
// text: refusals by reason, transfer memory) on p.ln until the returned
// stop is called.
func (p *Peer) serveStatus() (stop func()) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(p.Status())
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_ = writeMetrics(w, p.Status())
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(p.ln) //nolint:errcheck // ends with Close
	return func() { srv.Close() }
}
