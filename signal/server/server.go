package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Server is the signalling server. Create it with New, mount Handler (or
// call Serve), stop it with Shutdown. Safe for concurrent use.
type Server struct {
	cfg      Config
	handler  http.Handler
	metrics  http.Handler
	registry *prometheus.Registry
	counters counters
	admit    *admitter // guarded by mu

	mu      sync.Mutex
	tasks   map[ident.Task]*taskState // Config.Tasks and the created ones
	created map[ident.Task]*createdTask
	// basePoWBits is the highest proof of work of Config.Tasks: a
	// created task may not ask more (the challenge asks the highest).
	basePoWBits int
	// datasets are the data sets a created task may name: those this
	// server serves tabs (all, without a data directory).
	datasets []string
	// now is the clock of the created tasks' idle time (time.Now; tests
	// step it).
	now        func() time.Time
	peers      map[ident.Peer]*session
	sessions   map[*session]struct{} // every open websocket
	handshakes int                   // sessions not registered yet
	pending    addrCounts            // handshakes per client address and subnet

	proxyHeaderMissing atomic.Bool // logged once: a trusted proxy sent no client address
	draining           bool
	httpSrv            *http.Server
	wg                 sync.WaitGroup // session goroutines
}

// taskState is one hosted task and its peer set (guarded by Server.mu).
type taskState struct {
	id    ident.Task
	spec  task.Spec
	peers map[ident.Peer]*session
	addrs addrCounts // peers per client address and subnet
	// lastLeft is when a peer last left (a created task's idle clock).
	lastLeft time.Time
	progress taskProgress // its peers' summaries (progress.go)
}

// New validates cfg and returns a server ready to serve.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Server{
		cfg:      cfg,
		registry: prometheus.NewRegistry(),
		tasks:    make(map[ident.Task]*taskState, len(cfg.Tasks)),
		created:  map[ident.Task]*createdTask{},
		now:      time.Now,
		peers:    map[ident.Peer]*session{},
		sessions: map[*session]struct{}{},
		pending:  newAddrCounts(),
	}
	var err error
	if s.admit, err = newAdmitter(cfg.Admission); err != nil {
		return nil, err
	}
	for _, spec := range cfg.Tasks {
		n, err := spec.Normalized()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		id, _ := n.ID()
		s.tasks[id] = &taskState{id: id, spec: n, peers: map[ident.Peer]*session{}, addrs: newAddrCounts()}
		s.basePoWBits = max(s.basePoWBits, n.PoWBits())
	}
	s.registry.MustRegister(newCollector(s), collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	mux := http.NewServeMux()
	mux.HandleFunc("GET /signal", s.serveWebsocket)
	mux.HandleFunc("GET /healthz", s.serveHealth)
	mux.HandleFunc("GET /tasks", s.serveTasks)
	mux.HandleFunc("POST /tasks", s.serveCreateTask)
	mux.HandleFunc("GET /tasks/{id}/progress", s.serveProgress)
	s.metrics = promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{})
	if !cfg.MetricsSeparate {
		mux.Handle("GET /metrics", s.metrics)
	}
	dataDir := cfg.DataDir
	if dataDir == "" && cfg.WasmDir != "" {
		if dataDir = dataLink(cfg.WasmDir); dataDir != "" {
			s.logf("signal server: serving /wasm/data/ from %s (the data link in %s)", dataDir, cfg.WasmDir)
		}
	}
	s.datasets = servedDatasets(dataDir)
	for _, m := range []struct{ prefix, dir string }{{"/wasm/data/", dataDir}, {"/wasm/", cfg.WasmDir}, {"/", cfg.WebDir}} {
		if m.dir == "" {
			continue
		}
		h, err := staticHandler(m.dir, cfg.StaticGzipBytes)
		if err != nil {
			return nil, err
		}
		mux.Handle("GET "+m.prefix, http.StripPrefix(strings.TrimSuffix(m.prefix, "/")+"/", h))
	}
	s.handler = withSecurityHeaders(cfg.ContentSecurityPolicy, mux)
	return s, nil
}

// Handler returns the server's HTTP handler (all endpoints; /metrics
// only without Config.MetricsSeparate).
func (s *Server) Handler() http.Handler { return s.handler }

// MetricsHandler serves the Prometheus metrics (for a listener of its
// own with Config.MetricsSeparate).
func (s *Server) MetricsHandler() http.Handler { return s.metrics }

// Tasks returns the IDs and specs of the hosted tasks.
func (s *Server) Tasks() map[ident.Task]task.Spec {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[ident.Task]task.Spec, len(s.tasks))
	for id, ts := range s.tasks {
		out[id] = ts.spec
	}
	return out
}

// Serve accepts connections on ln until Shutdown; it returns nil after a
// graceful shutdown, ErrClosed if Shutdown came first, or the listener's
// error.
func (s *Server) Serve(ln net.Listener) error {
	return s.serve(ln)
}

// ServeTLS is Serve over TLS with tc (ServerTLSConfig,
// AutocertTLSConfig). Only HTTP/1.1 is offered: websockets need it. A
// plain-HTTP request on this listener gets a 400 and no page; every
// response carries HSTS.
func (s *Server) ServeTLS(ln net.Listener, tc *tls.Config) error {
	if tc == nil || (len(tc.Certificates) == 0 && tc.GetCertificate == nil) {
		return fmt.Errorf("%w: TLS config without a certificate", ErrConfig)
	}
	tc = tc.Clone()
	tc.NextProtos = onlyHTTP1(tc.NextProtos)
	return s.serve(tls.NewListener(ln, tc))
}

// onlyHTTP1 keeps http/1.1 and ACME's TLS-ALPN protocol of protos,
// dropping h2.
func onlyHTTP1(protos []string) []string {
	out := []string{"http/1.1"}
	for _, p := range protos {
		if p == "acme-tls/1" {
			out = append(out, p)
		}
	}
	return out
}

func (s *Server) serve(ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          log.New(logWriter{s.logf}, "", 0),
	}
	s.mu.Lock()
	if s.draining {
		s.mu.Unlock()
		return ErrClosed
	}
	s.httpSrv = hs
	s.mu.Unlock()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Shutdown stops the server gracefully: /healthz turns 503 and new
// websockets are refused, every peer gets an error message with
// CodeShutdown and a close frame, and the HTTP server (if Serve runs)
// stops. It returns when every connection has ended, or with ctx's error
// when ctx ends first (the remaining connections are then dropped).
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.draining = true
	hs := s.httpSrv
	open := make([]*session, 0, len(s.sessions))
	for sess := range s.sessions {
		open = append(open, sess)
	}
	s.mu.Unlock()
	s.logf("signal server: shutting down, closing %d connections", len(open))

	var httpErr error
	var httpDone sync.WaitGroup
	if hs != nil {
		httpDone.Go(func() { httpErr = hs.Shutdown(ctx) })
	}
	for _, sess := range open {
		go sess.closeWith(signal.CodeShutdown, "server shutting down")
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
		s.mu.Lock()
		for sess := range s.sessions {
			sess.kill()
		}
		s.mu.Unlock()
	}
	httpDone.Wait()
	if err == nil && httpErr != nil {
		err = httpErr
	}
	return err
}

func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	draining := s.draining
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if draining {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("shutting down\n"))
		return
	}
	w.Write([]byte("ok\n"))
}

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}

// logWriter sends net/http's error log to logf.
type logWriter struct{ logf func(string, ...any) }

func (w logWriter) Write(p []byte) (int, error) {
	w.logf("signal server: http: %s", p)
	return len(p), nil
}
