package server

import (
	"fmt"
	"net/netip"
	"path"
	"strings"
	"time"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Config configures a Server.
type Config struct {
	// Tasks are the hosted tasks (at least one, distinct). Each has its
	// own peer set, capped by its spec's MaxPeers.
	Tasks []task.Spec
	// MaxPeers bounds the registered peers over all tasks.
	MaxPeers int
	// MaxHandshakes bounds the connections that have not registered yet;
	// more are refused with HTTP 503.
	MaxHandshakes int
	// AddrLimits bound the handshakes and peers of one client address
	// and one subnet (within MaxHandshakes and MaxPeers).
	AddrLimits AddrLimits
	// Proxies are the trusted reverse proxies whose header names the
	// client address (clientip.go); the admission and address limits,
	// the TURN quotas and the logs use that address.
	Proxies ProxyTrust
	// MaxMessageSize bounds one received message (at most
	// signal.MaxMessageSize); a larger one closes the connection.
	MaxMessageSize int
	// MessagesPerSecond is the sustained rate of the per-connection token
	// bucket; messages beyond it are dropped and refused.
	MessagesPerSecond float64
	// Burst is the token bucket's depth.
	Burst int
	// MaxStrikes is the number of refused messages after which a
	// connection is closed (CodeTooManyErrors).
	MaxStrikes int
	// HandshakeTimeout bounds the time from the websocket upgrade to a
	// valid hello.
	HandshakeTimeout time.Duration
	// IdleTimeout closes a connection that sends nothing for so long
	// (clients ping; see signal.ClientConfig.PingInterval).
	IdleTimeout time.Duration
	// WriteTimeout bounds one message write to a peer.
	WriteTimeout time.Duration
	// BootstrapTimeout is the new peer's relay window when it does not
	// report MsgConnected earlier.
	BootstrapTimeout time.Duration
	// Contacts is how many live peers a new peer gets (1 to
	// signal.MaxContacts; fewer while the task has fewer).
	Contacts int
	// SendQueue is each peer's outgoing queue; a relay to a peer whose
	// queue is full is refused (CodeBusy).
	SendQueue int
	// AllowedOrigins are the websocket Origins accepted besides the same
	// origin (Origin's host equal to the request's Host). Each is a
	// path.Match pattern of the Origin's host[:port] ("localhost:*",
	// "*.example.org"; escape IPv6 brackets: `\[::1\]:*`) or, with
	// "://", of scheme://host[:port]. Requests
	// without an Origin (native peers) are accepted. Nil: same origin only.
	AllowedOrigins []string
	// ICEServers are the STUN/TURN servers handed to every peer.
	ICEServers []signal.ICEServer
	// STUNPort, if not 0, adds stun:<host>:<STUNPort> to every welcome,
	// host being the one the peer reached this server by (its request's
	// Host): this machine's STUN server (StartSTUN, or the embedded TURN
	// server, which answers STUN too) under the name peers know it by.
	STUNPort int
	// TURN, if not nil, adds per-peer time-limited TURN credentials to
	// every welcome (the embedded TURN server or coturn with
	// use-auth-secret checks them).
	TURN *TURNAuth
	// WebDir is served at / (the web page); "" serves nothing there.
	WebDir string
	// WasmDir is served at /wasm/ (peer.wasm, wasm_exec.js); "" serves
	// nothing there.
	WasmDir string
	// DataDir is served at /wasm/data/ (the datasets the page's demo
	// shard comes from); "" serves the target of a "data" symlink at the
	// top of WasmDir, if there is one, and nothing otherwise. WebDir,
	// WasmDir and DataDir are each served through an os.Root: no path or
	// symlink leads out of them, and dotfiles are not served.
	DataDir string
	// StaticGzipBytes bounds the memory kept for gzip-compressed copies
	// of WebDir's and WasmDir's files (each directory has its own), which
	// are served to clients that accept gzip; 0 serves everything
	// uncompressed.
	StaticGzipBytes int64
	// ContentSecurityPolicy is sent with every response; ""
	// sends none. DefaultContentSecurityPolicy fits web/.
	ContentSecurityPolicy string
	// MetricsSeparate keeps /metrics off Handler: serve MetricsHandler
	// on its own (private) listener instead. False: /metrics is public.
	MetricsSeparate bool
	// Admission configures the admission tokens (admission.go).
	Admission AdmissionConfig
	// TaskCreate says whether pages may create tasks (POST /tasks,
	// taskcreate.go); off by default.
	TaskCreate TaskCreateConfig
	// SummaryInterval is the least time between two counted summaries
	// of one peer (progress.go).
	SummaryInterval time.Duration
	// Logf, if not nil, receives connection events and refusals. It is
	// called from many goroutines at once (every connection's, timers',
	// Shutdown's): it must be safe for concurrent use and must not block.
	Logf func(format string, args ...any)
}

// TURNAuth describes a TURN server that accepts TURN REST credentials:
// username "<expiry unix time>:<peer ID, 64 hex digits>", password
// base64(HMAC-SHA1(Secret, username)).
type TURNAuth struct {
	// URLs are the server's turn:/turns: URLs given to peers.
	URLs []string
	// Secret is the shared secret (at least 16 bytes).
	Secret string
	// TTL is how long a peer's credentials stay valid for new
	// allocations (at most MaxTURNTTL). The embedded TURN server, tied to
	// the sessions, keeps existing allocations while the session lives;
	// coturn refuses their refreshes after it, so there TTL also bounds
	// a relayed connection's life.
	TTL time.Duration
	// OnSessionEnd, if not nil, is called with a peer's TURN user (its
	// ID's hex) when its last signalling session ends (TURN.Revoke: its
	// allocations end with it). Called without the server's lock; must
	// not block long.
	OnSessionEnd func(user string)
}

// MaxTURNTTL bounds TURNAuth.TTL: credentials live minutes, not days.
const MaxTURNTTL = 24 * time.Hour

// LocalOrigins are the Origins of pages served from this machine, any port
// (path.Match patterns: IPv6 brackets are escaped).
func LocalOrigins() []string {
	return []string{"localhost", "localhost:*", "127.0.0.1", "127.0.0.1:*", `\[::1\]`, `\[::1\]:*`}
}

// DefaultConfig returns the defaults; set Tasks (and usually ICEServers).
func DefaultConfig() Config {
	return Config{
		Tasks:                 nil,                          // must be set
		MaxPeers:              1000,                         // peers of all tasks together
		MaxHandshakes:         64,                           // unregistered connections at once
		AddrLimits:            DefaultAddrLimits(),          // per client address and /24 (/48)
		Proxies:               DefaultProxyTrust(),          // none: the TCP peer is the client
		MaxMessageSize:        signal.MaxMessageSize,        // 64 KiB: a relay of 32 KiB SDP fits
		MessagesPerSecond:     20,                           // an ICE candidate burst is ~10 messages
		Burst:                 40,                           // one connection setup's worth at once
		MaxStrikes:            50,                           // refused messages before disconnecting
		HandshakeTimeout:      10 * time.Second,             // upgrade to hello
		IdleTimeout:           60 * time.Second,             // clients ping every 20 s
		WriteTimeout:          10 * time.Second,             // per message to a slow peer
		BootstrapTimeout:      30 * time.Second,             // ICE over TURN takes a few seconds
		Contacts:              3,                            // FedLay's join needs one; three for redundancy
		SendQueue:             64,                           // messages waiting for one peer
		AllowedOrigins:        LocalOrigins(),               // same origin + pages on localhost
		ICEServers:            nil,                          // host candidates only (LAN, loopback)
		STUNPort:              0,                            // no STUN of this machine's (cmd/signalserver starts one)
		TURN:                  nil,                          // no TURN credentials
		WebDir:                "",                           // no web page
		WasmDir:               "",                           // no wasm build
		StaticGzipBytes:       256 << 20,                    // MNIST and peer.wasm gzipped take ~20 MB
		ContentSecurityPolicy: DefaultContentSecurityPolicy, // fits web/
		MetricsSeparate:       false,                        // /metrics on Handler
		Admission:             DefaultAdmission(),           // tokens with every welcome, limits per IP and subnet
		TaskCreate:            DefaultTaskCreate(),          // pages may not create tasks
		SummaryInterval:       MinSummaryInterval,           // 10 s: peers send every 30 s
		Logf:                  nil,                          // silent
	}
}

// Validate checks every field.
func (c *Config) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, a...)...)
	}
	if len(c.Tasks) == 0 {
		return bad("no tasks")
	}
	seen := map[ident.Task]bool{}
	for i := range c.Tasks {
		id, err := c.Tasks[i].ID()
		if err != nil {
			return bad("task %d: %w", i, err)
		}
		if seen[id] {
			return bad("task %d (%s) given twice", i, c.Tasks[i].Name)
		}
		seen[id] = true
	}
	switch {
	case c.MaxPeers < 1:
		return bad("MaxPeers %d", c.MaxPeers)
	case c.MaxHandshakes < 1:
		return bad("MaxHandshakes %d", c.MaxHandshakes)
	case c.AddrLimits.HandshakesPerIP < 1 || c.AddrLimits.HandshakesPerSubnet < c.AddrLimits.HandshakesPerIP:
		return bad("AddrLimits: %d handshakes per address, %d per subnet", c.AddrLimits.HandshakesPerIP, c.AddrLimits.HandshakesPerSubnet)
	case c.AddrLimits.PeersPerIP < 1 || c.AddrLimits.PeersPerSubnet < c.AddrLimits.PeersPerIP:
		return bad("AddrLimits: %d peers per address, %d per subnet", c.AddrLimits.PeersPerIP, c.AddrLimits.PeersPerSubnet)
	case !(c.AddrLimits.TaskShare > 0 && c.AddrLimits.TaskShare <= 1):
		return bad("AddrLimits: TaskShare %v, want (0, 1]", c.AddrLimits.TaskShare)
	case c.AddrLimits.SubnetBitsIPv4 < 8 || c.AddrLimits.SubnetBitsIPv4 > 32 || c.AddrLimits.SubnetBitsIPv6 < 16 || c.AddrLimits.SubnetBitsIPv6 > 128:
		return bad("AddrLimits: subnet bits %d (IPv4), %d (IPv6)", c.AddrLimits.SubnetBitsIPv4, c.AddrLimits.SubnetBitsIPv6)
	case c.MaxMessageSize < 1024 || c.MaxMessageSize > signal.MaxMessageSize:
		return bad("MaxMessageSize %d: want 1024 to %d", c.MaxMessageSize, signal.MaxMessageSize)
	case !(c.MessagesPerSecond > 0) || c.MessagesPerSecond > 1e6:
		return bad("MessagesPerSecond %v", c.MessagesPerSecond)
	case c.Burst < 1:
		return bad("Burst %d", c.Burst)
	case c.MaxStrikes < 1:
		return bad("MaxStrikes %d", c.MaxStrikes)
	case c.HandshakeTimeout <= 0, c.IdleTimeout <= 0, c.WriteTimeout <= 0:
		return bad("timeouts must be positive (handshake %v, idle %v, write %v)", c.HandshakeTimeout, c.IdleTimeout, c.WriteTimeout)
	case c.BootstrapTimeout <= 0 || c.BootstrapTimeout > signal.MaxBootstrapMS*time.Millisecond:
		return bad("BootstrapTimeout %v", c.BootstrapTimeout)
	case c.Contacts < 1 || c.Contacts > signal.MaxContacts:
		return bad("Contacts %d: want 1 to %d", c.Contacts, signal.MaxContacts)
	case c.SendQueue < 1:
		return bad("SendQueue %d", c.SendQueue)
	case c.StaticGzipBytes < 0:
		return bad("StaticGzipBytes %d", c.StaticGzipBytes)
	}
	for _, p := range c.AllowedOrigins {
		if _, err := path.Match(p, ""); err != nil || p == "" {
			return bad("AllowedOrigins pattern %q", p)
		}
	}
	n := len(c.ICEServers)
	if c.STUNPort != 0 {
		n++
		if c.STUNPort < 0 || c.STUNPort > 65535 {
			return bad("STUNPort %d", c.STUNPort)
		}
	}
	if c.TURN != nil {
		n++
		t := c.TURN
		if len(t.Secret) < 16 || t.TTL <= 0 || t.TTL > MaxTURNTTL {
			return bad("TURN: secret of %d bytes (want >= 16), TTL %v", len(t.Secret), t.TTL)
		}
		for _, u := range t.URLs {
			if !strings.HasPrefix(u, "turn:") && !strings.HasPrefix(u, "turns:") {
				return bad("TURN URL %q: want turn: or turns:", u)
			}
		}
		if err := (signal.ICEServer{URLs: t.URLs, Username: "1:x", Credential: "x"}).Validate(); err != nil {
			return bad("TURN: %w", err)
		}
	}
	if err := c.Admission.validate(c.Tasks); err != nil {
		return err
	}
	if err := c.TaskCreate.validate(); err != nil {
		return err
	}
	if c.SummaryInterval <= 0 {
		return bad("SummaryInterval %v", c.SummaryInterval)
	}
	if err := c.Proxies.validate(); err != nil {
		return err
	}
	// A trusted proxy that sends no header makes its clients its own
	// address: exempting that address would exempt them all.
	for _, ex := range []struct {
		what string
		ps   []netip.Prefix
	}{{"Admission.Exempt", c.Admission.Exempt}, {"AddrLimits.Exempt", c.AddrLimits.Exempt}} {
		if p, ok := c.Proxies.overlapsAny(ex.ps); ok {
			return bad("%s %v overlaps a trusted proxy's network: every client it fails to forward would be exempt", ex.what, p)
		}
	}
	if n > signal.MaxICEServers {
		return bad("%d ICE servers, limit %d", n, signal.MaxICEServers)
	}
	if err := signal.ValidateICEServers(c.ICEServers); err != nil {
		return bad("ICEServers: %w", err)
	}
	return nil
}
