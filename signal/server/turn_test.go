package server

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/pion/turn/v5"

	"github.com/peerlearn/peerlearn/signal"
)

// The embedded TURN server accepts the credentials handed out in the
// welcome and refuses others.
func TestEmbeddedTURN(t *testing.T) {
	const secret = "0123456789abcdef-test-secret"
	cfg := DefaultTURNConfig()
	cfg.ListenAddr = "127.0.0.1:0"
	cfg.Secret = secret
	srv, err := StartTURN(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	ts := startServer(t, func(c *Config) {
		c.TURN = &TURNAuth{URLs: []string{srv.URL()}, Secret: secret, TTL: time.Hour}
	})
	c := dial(t, ts, 1)
	ice := c.Welcome().ICEServers
	if len(ice) != 1 || ice[0].URLs[0] != srv.URL() || !strings.HasSuffix(ice[0].Username, ":"+c.ID().String()) {
		t.Fatalf("ICE servers %+v", ice)
	}
	if err := allocate(t, srv.Addr().String(), ice[0].Username, ice[0].Credential); err != nil {
		t.Fatalf("allocation with welcome credentials: %v", err)
	}
	if err := allocate(t, srv.Addr().String(), ice[0].Username, "wrong"); err == nil {
		t.Fatal("allocation with a wrong password succeeded")
	}
	expired, pass := TURNCredentials(secret, "x", time.Now().Add(-time.Minute))
	if err := allocate(t, srv.Addr().String(), expired, pass); err == nil {
		t.Fatal("allocation with expired credentials succeeded")
	}
	if _, err := StartTURN(TURNConfig{ListenAddr: "127.0.0.1:0", Realm: "r", Secret: "short"}); !errors.Is(err, ErrConfig) {
		t.Fatalf("short secret: %v", err)
	}
}

// allocate asks the TURN server at addr for a relay.
func allocate(t *testing.T, addr, user, pass string) error {
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c, err := turn.NewClient(&turn.ClientConfig{
		STUNServerAddr: addr, TURNServerAddr: addr, Conn: conn,
		Username: user, Password: pass, Realm: "peerlearn", RTO: 100 * time.Millisecond,
	})
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Listen(); err != nil {
		return err
	}
	relay, err := c.Allocate()
	if err != nil {
		return err
	}
	if relay.LocalAddr() == nil {
		t.Fatal("relay without an address")
	}
	return relay.Close()
}

func TestTURNCredentials(t *testing.T) {
	// Known answer (openssl dgst -sha1 -hmac secret -binary | base64).
	user, pass := TURNCredentials("secret", "peer", time.Unix(1700000000, 0))
	if user != "1700000000:peer" || pass != "m9GnlZWvaZKjLjGseKws6UpgiA0=" {
		t.Fatalf("%s %s", user, pass)
	}
	if err := (signal.ICEServer{URLs: []string{"turn:x"}, Username: user, Credential: pass}).Validate(); err != nil {
		t.Fatal(err)
	}
}
