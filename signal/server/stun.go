package server

import (
	"errors"
	"fmt"
	"net"

	"github.com/pion/logging"
	"github.com/pion/turn/v5"
)

// STUN is a STUN-only server (binding requests: "what is my address?"):
// what peers behind NATs need to gather server-reflexive candidates. The
// signalling server hands it out by default (Config.STUNPort), so two
// peers behind ordinary NATs connect without any flag; without it, they
// gathered host candidates only and never connected. It is pion's TURN
// server with every TURN request refused (no credentials are valid), the
// same code that answers STUN beside the embedded TURN server.
type STUN struct {
	srv  *turn.Server
	addr *net.UDPAddr
}

var errNoRelay = errors.New("signal server: this STUN server relays nothing")

// StartSTUN answers STUN binding requests on the UDP address addr until
// Close; logf (may be nil) gets pion's warnings.
func StartSTUN(addr string, logf func(format string, args ...any)) (*STUN, error) {
	conn, err := net.ListenPacket("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("signal server: STUN listen: %w", err)
	}
	logs := logging.NewDefaultLoggerFactory()
	logs.DefaultLogLevel = logging.LogLevelWarn
	logs.Writer = logWriter{TURNConfig{Logf: logf}.logf}
	srv, err := turn.NewServer(turn.ServerConfig{
		Realm:         "peerlearn",
		AuthHandler:   func(*turn.RequestAttributes) (string, []byte, bool) { return "", nil, false },
		LoggerFactory: logs,
		PacketConnConfigs: []turn.PacketConnConfig{{
			PacketConn:            conn,
			RelayAddressGenerator: noRelays{},
		}},
	})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("signal server: STUN: %w", err)
	}
	return &STUN{srv: srv, addr: conn.LocalAddr().(*net.UDPAddr)}, nil
}

// Addr returns the UDP address it listens on.
func (s *STUN) Addr() *net.UDPAddr { return s.addr }

// Close stops it.
func (s *STUN) Close() error { return s.srv.Close() }

// noRelays is the relay generator of a STUN-only server: never reached
// (every Allocate fails authentication first), and refusing if it were.
type noRelays struct{}

func (noRelays) Validate() error { return nil }
func (noRelays) AllocatePacketConn(turn.AllocateListenerConfig) (net.PacketConn, net.Addr, error) {
	return nil, nil, errNoRelay
}
func (noRelays) AllocateListener(turn.AllocateListenerConfig) (net.Listener, net.Addr, error) {
	return nil, nil, errNoRelay
}
func (noRelays) AllocateConn(turn.AllocateConnConfig) (net.Conn, error) { return nil, errNoRelay }
