package server

import (
	"fmt"
	"net"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/pion/logging"
	"github.com/pion/turn/v5"
)

// TURNConfig configures the embedded TURN server.
type TURNConfig struct {
	// ListenAddr is the UDP address to listen on ("127.0.0.1:3478";
	// port 0 picks one).
	ListenAddr string
	// RelayIP is the address put in relayed candidates (the machine's
	// public IP behind NAT); empty: the listen IP.
	RelayIP string
	// Realm is the TURN realm.
	Realm string
	// Secret is the TURN REST shared secret (Config.TURN.Secret).
	Secret string
	// AllowPeers are peer networks relayed to even though they are
	// denied by default (DeniedPeerPrefixes: loopback, private, ULA,
	// link-local, multicast, unspecified, ...; and this machine's own
	// addresses). For test networks and LAN deployments only: a public
	// relay that reaches them is an open door into them.
	AllowPeers []netip.Prefix
	// MaxAllocationsPerUser bounds one credential's live allocations
	// (a peer needs one per relayed WebRTC connection); more are refused
	// with 486 Allocation Quota Reached.
	MaxAllocationsPerUser int
	// MaxAllocationsPerIP and MaxAllocationsPerSubnet bound the live
	// allocations charged to one client address and to one /24 (IPv4) or
	// /48 (IPv6): the TURN request's source, and the signalling client
	// address of its user's session once tied to sessions (turnquota.go).
	// More are refused with 486.
	MaxAllocationsPerIP, MaxAllocationsPerSubnet int
	// Exempt are client networks charged per credential and in all only
	// (default: loopback, the demos' and tests' network).
	Exempt []netip.Prefix
	// MaxAllocations bounds all live allocations.
	MaxAllocations int
	// AllocationBytesPerSecond caps one allocation's relayed traffic
	// (both directions together); TotalBytesPerSecond caps the server's.
	// Packets over either are dropped.
	AllocationBytesPerSecond, TotalBytesPerSecond int64
	// Logf, if not nil, receives pion's warnings and errors, from pion's
	// goroutines: it must be safe for concurrent use and must not block.
	Logf func(format string, args ...any)
}

// DefaultTURNConfig returns a loopback TURN server; set Secret.
func DefaultTURNConfig() TURNConfig {
	return TURNConfig{
		ListenAddr:               "127.0.0.1:3478",   // the standard TURN port, loopback only
		RelayIP:                  "",                 // relay on the listen IP
		Realm:                    "peerlearn",        // any fixed string
		Secret:                   "",                 // must be set (>= 16 bytes)
		AllowPeers:               nil,                // public unicast peers only
		MaxAllocationsPerUser:    16,                 // rtc's overlay neighbours and a few spares
		MaxAllocationsPerIP:      128,                // 8 peers behind one address all relayed
		MaxAllocationsPerSubnet:  256,                // three subnets leave a fifth of the total
		Exempt:                   LoopbackPrefixes(), // the demos' and tests' peers share one machine
		MaxAllocations:           1000,               // one per relayed connection
		AllocationBytesPerSecond: 4 << 20,            // a 400 KB model in ~0.1 s
		TotalBytesPerSecond:      100 << 20,          // ~1 Gbit/s
		Logf:                     nil,                // silent
	}
}

// TURN is a running embedded TURN server (pion/turn, UDP, TURN REST
// credentials).
type TURN struct {
	srv    *turn.Server
	addr   net.Addr
	relays *relays
	filter *peerFilter
	live   atomic.Pointer[func(user string) bool]
	secret string

	authRefused atomic.Uint64
}

// StartTURN listens and serves TURN until Close.
func StartTURN(cfg TURNConfig) (*TURN, error) {
	switch {
	case len(cfg.Secret) < 16:
		return nil, fmt.Errorf("%w: TURN secret of %d bytes, want >= 16", ErrConfig, len(cfg.Secret))
	case cfg.Realm == "":
		return nil, fmt.Errorf("%w: TURN realm empty", ErrConfig)
	case cfg.MaxAllocationsPerUser < 1 || cfg.MaxAllocationsPerIP < cfg.MaxAllocationsPerUser ||
		cfg.MaxAllocationsPerSubnet < cfg.MaxAllocationsPerIP || cfg.MaxAllocations < cfg.MaxAllocationsPerUser:
		return nil, fmt.Errorf("%w: TURN allocations %d per user, %d per address, %d per subnet, %d in all (want 1 <= per user <= per address <= per subnet, per user <= in all)",
			ErrConfig, cfg.MaxAllocationsPerUser, cfg.MaxAllocationsPerIP, cfg.MaxAllocationsPerSubnet, cfg.MaxAllocations)
	case cfg.AllocationBytesPerSecond < 1500 || cfg.TotalBytesPerSecond < cfg.AllocationBytesPerSecond:
		return nil, fmt.Errorf("%w: TURN bandwidth %d B/s per allocation, %d in all", ErrConfig, cfg.AllocationBytesPerSecond, cfg.TotalBytesPerSecond)
	}
	conn, err := net.ListenPacket("udp4", cfg.ListenAddr)
	if err != nil {
		return nil, fmt.Errorf("signal server: TURN listen: %w", err)
	}
	growBuffers(conn)
	local := conn.LocalAddr().(*net.UDPAddr)
	relayIP := net.ParseIP(cfg.RelayIP)
	if cfg.RelayIP == "" {
		relayIP = local.IP
	}
	if relayIP == nil || relayIP.IsUnspecified() {
		conn.Close()
		return nil, fmt.Errorf("%w: TURN relay IP %q (set it when listening on all interfaces)", ErrConfig, cfg.RelayIP)
	}
	own := hostAddrs()
	for _, ip := range []net.IP{relayIP, local.IP} {
		if a, ok := netip.AddrFromSlice(ip); ok {
			own = append(own, a)
		}
	}
	t := &TURN{addr: local, filter: newPeerFilter(cfg.AllowPeers, own), secret: cfg.Secret}
	t.relays = newRelays(&turn.RelayAddressGeneratorStatic{RelayAddress: relayIP, Address: local.IP.String()}, t.filter, cfg)
	logs := logging.NewDefaultLoggerFactory()
	logs.DefaultLogLevel = logging.LogLevelWarn
	logs.Writer = logWriter{cfg.logf}
	srv, err := turn.NewServer(turn.ServerConfig{
		Realm:         cfg.Realm,
		AuthHandler:   t.auth,
		QuotaHandler:  t.relays.quota,
		LoggerFactory: logs,
		PacketConnConfigs: []turn.PacketConnConfig{{
			PacketConn:            conn,
			RelayAddressGenerator: t.relays,
			PermissionHandler:     t.permit,
		}},
	})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("signal server: TURN: %w", err)
	}
	t.srv = srv
	return t, nil
}

// permit is the turn.PermissionHandler: CreatePermission and ChannelBind
// only for allowed peers.
func (t *TURN) permit(_ net.Addr, peer net.IP) bool {
	if t.filter.allowedIP(peer) {
		return true
	}
	t.relays.peerDenied.Add(1)
	return false
}

// TieToSessions makes every credential valid only while its user has a
// registered session on s (Server.TURNUserLive), and charges each
// allocation to the session's client address as well as to the TURN
// request's source (turnquota.go). Use it with TURNAuth.OnSessionEnd =
// Revoke, which ends the allocations when the session ends.
func (t *TURN) TieToSessions(s *Server) {
	live, addr := s.TURNUserLive, s.turnUserAddr
	t.live.Store(&live)
	t.relays.sessionAddr.Store(&addr)
}

// Revoke ends user's allocations at once (their relay sockets close);
// its credentials stop working if TieToSessions is set.
func (t *TURN) Revoke(user string) { t.relays.revoke(user) }

// Addr returns the UDP address the server listens on.
func (t *TURN) Addr() net.Addr { return t.addr }

// URL returns the turn: URL of the listen address (for TURNAuth.URLs when
// peers reach this address directly).
func (t *TURN) URL() string { return "turn:" + t.addr.String() + "?transport=udp" }

// Allocations returns the number of live allocations.
func (t *TURN) Allocations() int { return t.srv.AllocationCount() }

// TURNStats counts the embedded TURN server's refusals.
type TURNStats struct {
	// AuthRefused: requests with bad, expired or revoked credentials.
	AuthRefused uint64
	// QuotaRefused: allocations over a quota (per user, address, subnet
	// or in all); AddrQuotaRefused: those of them over an address's or a
	// subnet's.
	QuotaRefused, AddrQuotaRefused uint64
	// PeerDenied: permissions, channel binds and packets for denied peer
	// addresses.
	PeerDenied uint64
	// BytesDropped: relayed bytes over the bandwidth caps.
	BytesDropped uint64
}

// Stats returns the counters.
func (t *TURN) Stats() TURNStats {
	return TURNStats{AuthRefused: t.authRefused.Load(), QuotaRefused: t.relays.quotaRefused.Load(), AddrQuotaRefused: t.relays.addrQuotaRefused.Load(),
		PeerDenied: t.relays.peerDenied.Load(), BytesDropped: t.relays.bytesDropped.Load()}
}

// Close stops the server.
func (t *TURN) Close() error { return t.srv.Close() }

func (c TURNConfig) logf(format string, args ...any) {
	if c.Logf != nil {
		c.Logf(format, args...)
	}
}

// now is the TURN server's clock (tests move it).
var turnNow = time.Now
