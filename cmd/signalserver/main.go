package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/netip"
	"os"
	ossignal "os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server"
)

func main() {
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	if err := run(os.Args[1:]); err != nil {
		log.Fatalf("signalserver: %v", err)
	}
}

func run(args []string) error {
	def := server.DefaultConfig()
	fs := flag.NewFlagSet("signalserver", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	webDir := fs.String("web", "web", "directory served at / (empty: none)")
	wasmDir := fs.String("wasm", "", "directory served at /wasm/: peer.wasm, wasm_exec.js (empty: none)")
	dataDir := fs.String("data", "", "directory served at /wasm/data/ (the datasets; empty: the target of a data symlink in -wasm, if any)")
	noWeb := fs.Bool("no-web", false, "serve neither -web nor -wasm (signalling, /healthz and /metrics only)")
	var taskFiles, taskJSON list
	fs.Var(&taskFiles, "task", "task spec file: one JSON spec or an array (repeatable; none: the default MNIST task)")
	fs.Var(&taskJSON, "task-json", "task spec as inline JSON (repeatable)")
	maxPeers := fs.Int("max-peers", def.MaxPeers, "registered peers over all tasks")
	gzipMB := fs.Int64("gzip-mb", def.StaticGzipBytes>>20, "MiB of memory for gzipped copies of -web's and -wasm's files, each (0: serve uncompressed)")
	rate := fs.Float64("rate", def.MessagesPerSecond, "messages per second per connection")
	burst := fs.Int("burst", def.Burst, "message burst per connection")
	bootstrap := fs.Duration("bootstrap-timeout", def.BootstrapTimeout, "relay window of a new peer")
	idle := fs.Duration("idle-timeout", def.IdleTimeout, "close connections silent for this long")
	origins := fs.String("origins", strings.Join(def.AllowedOrigins, ","), "allowed websocket Origin patterns besides the same origin, comma-separated (empty: same origin only)")
	iceURLs := fs.String("ice-servers", "", "STUN URLs handed to peers, comma-separated (e.g. stun:stun.example.org:3478; default: stun:<the host peers reach this server by>:<port> of the embedded TURN server with -turn, which answers STUN too, else of -stun-addr)")
	stunAddr := fs.String("stun-addr", "auto", "UDP address of this server's STUN responder, handed out as stun:<the host peers reach this server by>:<port> (auto: -addr's, unless -turn or -ice-servers provide STUN; empty: none)")
	turnOn := fs.Bool("turn", false, "run the embedded TURN server (pion/turn, UDP)")
	turnAddr := fs.String("turn-addr", "127.0.0.1:3478", "embedded TURN server's UDP listen address")
	turnRelayIP := fs.String("turn-relay-ip", "", "IP in relayed candidates (public IP; default: the listen IP)")
	turnURL := fs.String("turn-url", "", "turn: URL handed to peers (default with -turn: turn:<turn-addr>?transport=udp; without -turn: an external TURN server sharing -turn-secret)")
	turnSecret := fs.String("turn-secret", os.Getenv("PEERLEARN_TURN_SECRET"), "TURN REST shared secret (default $PEERLEARN_TURN_SECRET; with -turn and none: random)")
	turnTTL := fs.Duration("turn-ttl", 10*time.Minute, "lifetime of the TURN credentials handed to a peer, for new allocations (the embedded server keeps a peer's allocations while its session lives; coturn ends them after it)")
	defTURN := server.DefaultTURNConfig()
	turnAllow := fs.String("turn-allow-peer", "", "with -turn: peer networks (CIDRs, comma-separated) relayed to although denied by default (loopback, private, link-local, ...); test networks and LANs only")
	turnPerUser := fs.Int("turn-allocs-per-peer", defTURN.MaxAllocationsPerUser, "with -turn: live TURN allocations per peer")
	turnPerIP := fs.Int("turn-allocs-per-ip", defTURN.MaxAllocationsPerIP, "with -turn: live TURN allocations per client address (the TURN request's source and the peer's signalling address are both charged; -limit-exempt networks are not)")
	turnPerSubnet := fs.Int("turn-allocs-per-subnet", defTURN.MaxAllocationsPerSubnet, "with -turn: live TURN allocations per client /24 (IPv6: /48)")
	turnAllocs := fs.Int("turn-allocs", defTURN.MaxAllocations, "with -turn: live TURN allocations in all")
	turnBW := fs.Int64("turn-bytes-per-sec", defTURN.AllocationBytesPerSecond, "with -turn: relayed bytes per second per allocation")
	turnBWTotal := fs.Int64("turn-total-bytes-per-sec", defTURN.TotalBytesPerSecond, "with -turn: relayed bytes per second in all")
	shutdownTimeout := fs.Duration("shutdown-timeout", 10*time.Second, "graceful shutdown limit")
	metricsAddr := fs.String("metrics-addr", "", "serve /metrics on this address only (plain HTTP; keep it private, e.g. 127.0.0.1:9090), not on -addr (empty: on -addr)")
	tlsf := addTLSFlags(fs)
	hsPerIP := fs.Int("handshakes-per-ip", def.AddrLimits.HandshakesPerIP, "unfinished handshakes per client address")
	hsPerSubnet := fs.Int("handshakes-per-subnet", def.AddrLimits.HandshakesPerSubnet, "unfinished handshakes per client /24 (IPv6: /48)")
	peersPerIP := fs.Int("peers-per-ip", def.AddrLimits.PeersPerIP, "registered peers of one task per client address (at most half the task's max_peers)")
	peersPerSubnet := fs.Int("peers-per-subnet", def.AddrLimits.PeersPerSubnet, "registered peers of one task per client /24 (IPv6: /48; at most half the task's max_peers)")
	exempt := fs.String("limit-exempt", loopbackCIDRs, "client networks (CIDRs, comma-separated) the per-address limits (handshakes, peers, TURN allocations) do not apply to (empty: none; default with -trusted-proxies: none)")
	admissionExempt := fs.String("admission-exempt", loopbackCIDRs, "client networks (CIDRs, comma-separated) whose admissions are not counted per address and subnet (empty: none; default with -trusted-proxies: none)")
	proxies := fs.String("trusted-proxies", "", "reverse proxies (CIDRs, comma-separated, e.g. 127.0.0.1/32) whose -proxy-header names the client address; the limits, TURN quotas and logs use that address (empty: none, the TCP peer is the client)")
	proxyHeader := fs.String("proxy-header", server.HeaderForwardedFor, "the header the -trusted-proxies set: X-Forwarded-For (the right-most untrusted hop is the client) or X-Real-IP")
	coturnConf := fs.Bool("coturn-config", false, "print a turnserver.conf for Debian's coturn as the external TURN server (checks -turn-secret's credentials, denies the same peer networks as -turn, external-ip from -turn-relay-ip) and exit")
	defCreate := server.DefaultTaskCreate()
	taskCreate := fs.Bool("task-create", defCreate.Enabled, "let pages create tasks (POST /tasks, the page's form), with the same checks as peerlearn task check; a created task asks no harder proof of work than -task's, names no data of its own, and is dropped after -task-create-idle without peers")
	taskCreateMax := fs.Int("task-create-max", defCreate.Max, "with -task-create: created tasks hosted at once")
	taskCreatePerIP := fs.Int("task-create-per-ip", defCreate.PerAddr, "with -task-create: created tasks hosted at once per client address (-limit-exempt networks are not counted)")
	taskCreateIdle := fs.Duration("task-create-idle", defCreate.Idle, "with -task-create: a created task without peers this long is dropped")
	admissionKey := fs.String("admission-key", "", "file with the admission key seed (64 hex digits; created if missing). Servers of a task, and a restarted server, must share it; empty: a fresh key per run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *coturnConf {
		return printCoturnConfig(os.Stdout, *turnSecret, *turnRelayIP)
	}

	cfg := def
	cfg.Logf = log.Printf
	cfg.MaxPeers, cfg.MessagesPerSecond, cfg.Burst = *maxPeers, *rate, *burst
	cfg.StaticGzipBytes = *gzipMB << 20
	cfg.BootstrapTimeout, cfg.IdleTimeout = *bootstrap, *idle
	cfg.AllowedOrigins = split(*origins)
	for _, u := range split(*iceURLs) {
		cfg.ICEServers = append(cfg.ICEServers, signal.ICEServer{URLs: []string{u}})
	}
	if !*noWeb {
		cfg.WebDir, cfg.WasmDir, cfg.DataDir = *webDir, *wasmDir, *dataDir
	}
	cfg.MetricsSeparate = *metricsAddr != ""
	cfg.TaskCreate = server.TaskCreateConfig{Enabled: *taskCreate, Max: *taskCreateMax, PerAddr: *taskCreatePerIP, Idle: *taskCreateIdle}
	cfg.AddrLimits.HandshakesPerIP, cfg.AddrLimits.HandshakesPerSubnet = *hsPerIP, *hsPerSubnet
	cfg.AddrLimits.PeersPerIP, cfg.AddrLimits.PeersPerSubnet = *peersPerIP, *peersPerSubnet
	var err error
	if cfg.Proxies.Proxies, err = prefixes("-trusted-proxies", *proxies); err != nil {
		return err
	}
	cfg.Proxies.Header = *proxyHeader
	if len(cfg.Proxies.Proxies) > 0 {
		// Behind a proxy the loopback clients are the proxy itself: its
		// exemption is off unless asked for (and refused if it covers
		// the proxy, Config.Validate).
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		if !given["limit-exempt"] {
			*exempt = ""
		}
		if !given["admission-exempt"] {
			*admissionExempt = ""
		}
	}
	if cfg.AddrLimits.Exempt, err = prefixes("-limit-exempt", *exempt); err != nil {
		return err
	}
	if cfg.Admission.Exempt, err = prefixes("-admission-exempt", *admissionExempt); err != nil {
		return err
	}
	if len(cfg.Proxies.Proxies) > 0 {
		log.Printf("signalserver: client addresses from %s on connections from %s; exempt from the address limits: %q, from admission counting: %q",
			cfg.Proxies.Header, *proxies, *exempt, *admissionExempt)
	}
	tlsSet, err := tlsf.setup()
	if err != nil {
		return err
	}
	tasks, err := loadTasks(taskFiles, taskJSON)
	if err != nil {
		return err
	}
	cfg.Tasks = tasks
	if *admissionKey != "" {
		if err := server.LoadAdmissionKey(*admissionKey, &cfg.Admission); err != nil {
			return err
		}
	}

	var turn *server.TURN
	if *turnOn {
		if *turnSecret == "" {
			*turnSecret = randomSecret()
		}
		tc := server.DefaultTURNConfig()
		tc.ListenAddr, tc.RelayIP, tc.Secret, tc.Logf = *turnAddr, *turnRelayIP, *turnSecret, log.Printf
		tc.MaxAllocationsPerUser, tc.MaxAllocations = *turnPerUser, *turnAllocs
		tc.MaxAllocationsPerIP, tc.MaxAllocationsPerSubnet = *turnPerIP, *turnPerSubnet
		tc.Exempt = cfg.AddrLimits.Exempt
		tc.AllocationBytesPerSecond, tc.TotalBytesPerSecond = *turnBW, *turnBWTotal
		for _, c := range split(*turnAllow) {
			p, err := netip.ParsePrefix(c)
			if err != nil {
				return fmt.Errorf("-turn-allow-peer: %w", err)
			}
			tc.AllowPeers = append(tc.AllowPeers, p)
		}
		var err error
		turn, err = server.StartTURN(tc)
		if err != nil {
			return err
		}
		defer turn.Close()
		if *turnURL == "" {
			*turnURL = turn.URL()
		}
		if *iceURLs == "" { // pion's TURN server answers STUN binding requests too
			cfg.STUNPort = turn.Addr().(*net.UDPAddr).Port
		}
		log.Printf("signalserver: TURN on udp %v", turn.Addr())
	}
	if *turnURL != "" {
		cfg.TURN = &server.TURNAuth{URLs: []string{*turnURL}, Secret: *turnSecret, TTL: *turnTTL}
		if turn != nil {
			cfg.TURN.OnSessionEnd = turn.Revoke // a peer's relays end with its session
		}
	}

	if *stunAddr == "auto" && cfg.STUNPort == 0 && *iceURLs == "" {
		// Without STUN two peers behind ordinary NATs gather host
		// candidates only and never connect: serve it by default. A
		// port already taken (another server's STUN on this machine)
		// is not fatal for the default.
		st, err := server.StartSTUN(*addr, log.Printf)
		if err != nil {
			log.Printf("signalserver: warning: no STUN served on udp %s (%v)", *addr, err)
		} else {
			defer st.Close()
			cfg.STUNPort = st.Addr().Port
			log.Printf("signalserver: STUN on udp %v", st.Addr())
		}
	} else if *stunAddr != "" && *stunAddr != "auto" {
		st, err := server.StartSTUN(*stunAddr, log.Printf)
		if err != nil {
			return fmt.Errorf("-stun-addr: %w", err)
		}
		defer st.Close()
		cfg.STUNPort = st.Addr().Port
		log.Printf("signalserver: STUN on udp %v", st.Addr())
	}
	if cfg.STUNPort != 0 {
		log.Printf("signalserver: peers are handed stun:<the host they reach this server by>:%d", cfg.STUNPort)
	} else if *iceURLs == "" {
		log.Printf("signalserver: warning: no STUN server: peers behind NATs gather host candidates only and connect only within one network")
	}
	if cfg.TURN == nil {
		log.Printf("signalserver: warning: no TURN server (-turn, or -turn-url and -turn-secret for coturn): peers behind symmetric NATs (common on mobile networks) or networks that block UDP will connect to no one")
	}

	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	if turn != nil {
		turn.TieToSessions(srv) // credentials only while the session lives
	}
	if c := cfg.TaskCreate; c.Enabled {
		log.Printf("signalserver: pages may create tasks (-task-create): at most %d at once, %d per client address, each dropped after %v without peers", c.Max, c.PerAddr, c.Idle)
	}
	for id, spec := range srv.Tasks() {
		log.Printf("signalserver: task %s %q (%s, %s, %s, L=%d, max %d peers)", id.Hex(), spec.Name, spec.Dataset, spec.Arch, spec.Aggregator, spec.OverlaySpaces(), spec.MaxPeers)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	ctx, stop := ossignal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 3)
	scheme := "http"
	if tlsSet.config != nil {
		scheme = "https"
		go func() { served <- srv.ServeTLS(ln, tlsSet.config) }()
	} else {
		go func() { served <- srv.Serve(ln) }()
	}
	var extra []*http.Server // the metrics and ACME listeners
	defer func() {
		for _, hs := range extra {
			hs.Close()
		}
	}()
	listen := func(what, addr string, h http.Handler) error {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		extra = append(extra, hs)
		go func() {
			if err := hs.Serve(l); !errors.Is(err, http.ErrServerClosed) {
				served <- fmt.Errorf("%s: %w", what, err)
			}
		}()
		log.Printf("signalserver: %s on http://%s", what, l.Addr())
		return nil
	}
	if *metricsAddr != "" {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", srv.MetricsHandler())
		if err := listen("metrics", *metricsAddr, mux); err != nil {
			return err
		}
	}
	if tlsSet.acme != nil {
		if err := listen("ACME challenges and https redirects", *tlsf.httpAddr, tlsSet.acme); err != nil {
			return err
		}
	}
	if tlsSet.finger != "" {
		log.Printf("signalserver: self-signed TLS certificate for %s, SHA-256 fingerprint %s", *tlsf.selfSigned, tlsSet.finger)
		fmt.Printf("tls-fingerprint sha256=%s\n", tlsSet.finger)
		fmt.Printf("tls-spki sha256-base64=%s\n", tlsSet.spki) // chromium --ignore-certificate-errors-spki-list
	}
	log.Printf("signalserver: listening on %s://%s (websocket /signal)", scheme, ln.Addr())
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Printf("signalserver: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), *shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Printf("signalserver: shutdown: %v", err)
	}
	return <-served
}

// loadTasks reads the task files and inline specs; none gives the default
// task.
func loadTasks(files, inline []string) ([]task.Spec, error) {
	var out []task.Spec
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		specs, err := task.ParseList(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, specs...)
	}
	for _, j := range inline {
		s, err := task.Parse([]byte(j))
		if err != nil {
			return nil, fmt.Errorf("-task-json: %w", err)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		s := task.DefaultSpec()
		s.Name = "mnist-fedlay"
		out = append(out, s)
	}
	return out, nil
}

// randomSecret returns 32 random hex digits.
func randomSecret() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// loopbackCIDRs is the default exemption: the demos and tests run many
// peers on one machine.
const loopbackCIDRs = "127.0.0.0/8,::1/128"

// prefixes parses a comma-separated CIDR flag.
func prefixes(flagName, s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, c := range split(s) {
		p, err := netip.ParsePrefix(c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flagName, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// split splits a comma-separated flag, dropping empty items.
func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// list is a repeatable string flag.
type list []string

func (l *list) String() string { return strings.Join(*l, ",") }

func (l *list) Set(s string) error {
	if s == "" {
		return errors.New("empty value")
	}
	*l = append(*l, s)
	return nil
}
