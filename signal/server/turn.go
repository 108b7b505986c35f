package server

import (
	"fmt"
	"net"

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
	// Logf, if not nil, receives pion's warnings and errors, from pion's
	// goroutines: it must be safe for concurrent use and must not block.
	Logf func(format string, args ...any)
}

// DefaultTURNConfig returns a loopback TURN server; set Secret.
func DefaultTURNConfig() TURNConfig {
	return TURNConfig{
		ListenAddr: "127.0.0.1:3478", // the standard TURN port, loopback only
		RelayIP:    "",               // relay on the listen IP
		Realm:      "peerlearn",      // any fixed string
		Secret:     "",               // must be set (>= 16 bytes)
		Logf:       nil,              // silent
	}
}

// TURN is a running embedded TURN server (pion/turn, UDP, TURN REST
// credentials).
type TURN struct {
	srv  *turn.Server
	addr net.Addr
}

// StartTURN listens and serves TURN until Close.
func StartTURN(cfg TURNConfig) (*TURN, error) {
	if len(cfg.Secret) < 16 {
		return nil, fmt.Errorf("%w: TURN secret of %d bytes, want >= 16", ErrConfig, len(cfg.Secret))
	}
	if cfg.Realm == "" {
		return nil, fmt.Errorf("%w: TURN realm empty", ErrConfig)
	}
	conn, err := net.ListenPacket("udp4", cfg.ListenAddr)
	if err != nil {
		return nil, fmt.Errorf("signal server: TURN listen: %w", err)
	}
	local := conn.LocalAddr().(*net.UDPAddr)
	relayIP := net.ParseIP(cfg.RelayIP)
	if cfg.RelayIP == "" {
		relayIP = local.IP
	}
	if relayIP == nil || relayIP.IsUnspecified() {
		conn.Close()
		return nil, fmt.Errorf("%w: TURN relay IP %q (set it when listening on all interfaces)", ErrConfig, cfg.RelayIP)
	}
	logs := logging.NewDefaultLoggerFactory()
	logs.DefaultLogLevel = logging.LogLevelWarn
	logs.Writer = logWriter{cfg.logf}
	srv, err := turn.NewServer(turn.ServerConfig{
		Realm:         cfg.Realm,
		AuthHandler:   turn.LongTermTURNRESTAuthHandler(cfg.Secret, logs.NewLogger("turn")),
		LoggerFactory: logs,
		PacketConnConfigs: []turn.PacketConnConfig{{
			PacketConn: conn,
			RelayAddressGenerator: &turn.RelayAddressGeneratorStatic{
				RelayAddress: relayIP,
				Address:      local.IP.String(),
			},
		}},
	})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("signal server: TURN: %w", err)
	}
	return &TURN{srv: srv, addr: local}, nil
}

// Addr returns the UDP address the server listens on.
func (t *TURN) Addr() net.Addr { return t.addr }

// URL returns the turn: URL of the listen address (for TURNAuth.URLs when
// peers reach this address directly).
func (t *TURN) URL() string { return "turn:" + t.addr.String() + "?transport=udp" }

// Allocations returns the number of live allocations.
func (t *TURN) Allocations() int { return t.srv.AllocationCount() }

// Close stops the server.
func (t *TURN) Close() error { return t.srv.Close() }

func (c TURNConfig) logf(format string, args ...any) {
	if c.Logf != nil {
		c.Logf(format, args...)
	}
}
