package netlab

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/peerlearn/peerlearn/signal/server"
)

// CoturnAddr is where the lab's coturn (the external TURN server)
// listens when asked for.
const CoturnAddr = ServerIP + ":3479"

// ServerConfig is the lab's signalling server.
type ServerConfig struct {
	SignalBin string
	Dir       string   // logs
	TaskFile  string   // "": the server's default task
	Web       []string // extra flags, e.g. -web web -wasm bin/web; none: -no-web
	// Coturn: hand out Debian's coturn (started here) instead of the
	// embedded pion TURN server.
	Coturn bool
	// TURNUncapped lifts the embedded server's per-allocation bandwidth
	// cap (a hardened server's default is 4 MiB/s): for measuring what
	// the relay path can carry.
	TURNUncapped bool
	// DefaultFlags starts the server as an operator who reads no docs
	// would: no -turn, -turn-url or -ice-servers (with Coturn: refused).
	// It then answers STUN on the UDP twin of its address and hands that
	// out, and offers no relay.
	DefaultFlags bool
}

// Servers are the processes of the internet namespace.
type Servers struct {
	Signal, Coturn *Proc
}

// Stop stops them.
func (s *Servers) Stop() {
	for _, p := range []*Proc{s.Signal, s.Coturn} {
		if p != nil {
			p.Stop()
		}
	}
}

// StartServers starts the signalling server (with the embedded TURN
// server, which hands out its stun: URL by default, or with coturn) in
// the internet namespace and waits for its port.
func StartServers(ctx context.Context, l *Lab, cfg ServerConfig) (*Servers, error) {
	args := []string{"-addr", SignalAddr}
	if cfg.TaskFile != "" {
		args = append(args, "-task", cfg.TaskFile)
	}
	if len(cfg.Web) == 0 {
		args = append(args, "-no-web")
	}
	args = append(args, cfg.Web...)
	s := &Servers{}
	if cfg.DefaultFlags && cfg.Coturn {
		return nil, errors.New("netlab: DefaultFlags and Coturn: coturn needs -turn-url")
	}
	switch {
	case cfg.DefaultFlags:
		// No ICE flags at all: the server's own STUN, no relay.
	case cfg.Coturn:
		bin, err := exec.LookPath("turnserver")
		if err != nil {
			return nil, fmt.Errorf("coturn: %w (scripts/deps.sh netlab)", err)
		}
		secret := make([]byte, 16)
		rand.Read(secret)
		sec := hex.EncodeToString(secret)
		// The deployment's own configuration (server.CoturnConfig, as
		// docs/DEPLOY.md has it), allowing the lab's documentation-range
		// internet. Its denied private ranges matter here beyond
		// security: coturn 4.6 stops relaying for a whole allocation once
		// a send to an unroutable peer fails (ENETUNREACH), and ICE sends
		// to every remote host candidate, private ones included, through
		// the relay: with plain command-line options the UDP-blocked
		// home never connected.
		o := server.DefaultCoturnOptions(sec)
		o.ListenIP, o.Port, o.RelayIP = ServerIP, 3479, ServerIP
		o.AllowPeers = []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}
		if cfg.TURNUncapped {
			o.MaxBPS = 0
		}
		o.Extra = []string{"pidfile=" + filepath.Join(cfg.Dir, "coturn.pid"), "userdb=" + filepath.Join(cfg.Dir, "coturn.db"),
			"log-file=" + filepath.Join(cfg.Dir, "coturn-detail.log"), "no-stdout-log", "verbose"}
		conf := filepath.Join(cfg.Dir, "turnserver.conf")
		if err := os.WriteFile(conf, []byte(server.CoturnConfig(o)), 0o600); err != nil {
			return nil, err
		}
		s.Coturn, err = StartProc(l.Internet, cfg.Dir, "coturn", bin, []string{"-c", conf}, false)
		if err != nil {
			return nil, err
		}
		args = append(args, "-turn-url", "turn:"+CoturnAddr+"?transport=udp", "-turn-secret", sec, "-ice-servers", "stun:"+CoturnAddr)
	default:
		args = append(args, "-turn", "-turn-addr", TURNAddr)
		if supportsFlag(cfg.SignalBin, "turn-allow-peer") {
			// A hardened server refuses to relay to documentation
			// ranges, which the lab's internet is.
			args = append(args, "-turn-allow-peer", "203.0.113.0/24")
		}
		if cfg.TURNUncapped && supportsFlag(cfg.SignalBin, "turn-bytes-per-sec") {
			args = append(args, "-turn-bytes-per-sec", "1073741824", "-turn-total-bytes-per-sec", "1073741824")
		}
	}
	var err error
	s.Signal, err = StartProc(l.Internet, cfg.Dir, "signalserver", cfg.SignalBin, args, false)
	if err != nil {
		s.Stop()
		return nil, err
	}
	if err := waitTCP(ctx, l.Internet, SignalAddr, 10*time.Second); err != nil {
		s.Stop()
		return nil, fmt.Errorf("signal server: %w: %s", err, s.Signal.Tail(2000))
	}
	return s, nil
}

// supportsFlag reports whether bin's -h lists -name.
func supportsFlag(bin, name string) bool {
	out, _ := exec.Command(bin, "-h").CombinedOutput()
	return strings.Contains(string(out), "-"+name+" ") || strings.Contains(string(out), "-"+name+"\n")
}
