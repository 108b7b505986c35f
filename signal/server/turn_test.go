package server

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/pion/turn/v5"

	"github.com/peerlearn/peerlearn/signal"
)

const testTURNSecret = "0123456789abcdef-test-secret"

// startTURN runs an embedded TURN server on loopback after mutate.
func startTURN(t *testing.T, mutate func(*TURNConfig)) *TURN {
	t.Helper()
	cfg := DefaultTURNConfig()
	cfg.ListenAddr = "127.0.0.1:0"
	cfg.Secret = testTURNSecret
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := StartTURN(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// The embedded TURN server accepts the credentials handed out in the
// welcome and refuses others.
func TestEmbeddedTURN(t *testing.T) {
	srv := startTURN(t, nil)
	ts := startServer(t, func(c *Config) {
		c.TURN = &TURNAuth{URLs: []string{srv.URL()}, Secret: testTURNSecret, TTL: time.Hour}
	})
	c := dial(t, ts, 1)
	ice := c.Welcome().ICEServers
	if len(ice) != 1 || ice[0].URLs[0] != srv.URL() || !strings.HasSuffix(ice[0].Username, ":"+c.ID().Hex()) {
		t.Fatalf("ICE servers %+v", ice)
	}
	if err := allocate(t, srv.Addr().String(), ice[0].Username, ice[0].Credential); err != nil {
		t.Fatalf("allocation with welcome credentials: %v", err)
	}
	if err := allocate(t, srv.Addr().String(), ice[0].Username, "wrong"); err == nil {
		t.Fatal("allocation with a wrong password succeeded")
	}
	expired, pass := TURNCredentials(testTURNSecret, "x", time.Now().Add(-time.Minute))
	if err := allocate(t, srv.Addr().String(), expired, pass); err == nil {
		t.Fatal("allocation with expired credentials succeeded")
	}
	if _, err := StartTURN(TURNConfig{ListenAddr: "127.0.0.1:0", Realm: "r", Secret: "short"}); !errors.Is(err, ErrConfig) {
		t.Fatalf("short secret: %v", err)
	}
}

// turnClient is a pion TURN client with credentials on loopback.
func turnClient(t *testing.T, addr, user, pass string) *turn.Client {
	t.Helper()
	return turnClientFrom(t, netip.MustParseAddr("127.0.0.1"), addr, user, pass)
}

// turnClientFrom is turnClient on the local address from.
func turnClientFrom(t *testing.T, from netip.Addr, addr, user, pass string) *turn.Client {
	t.Helper()
	conn, err := net.ListenPacket("udp4", netip.AddrPortFrom(from, 0).String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c, err := turn.NewClient(&turn.ClientConfig{
		STUNServerAddr: addr, TURNServerAddr: addr, Conn: conn,
		Username: user, Password: pass, Realm: "peerlearn", RTO: 100 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if err := c.Listen(); err != nil {
		t.Fatal(err)
	}
	return c
}

// allocate asks the TURN server at addr for a relay.
func allocate(t *testing.T, addr, user, pass string) error {
	c := turnClient(t, addr, user, pass)
	relay, err := c.Allocate()
	if err != nil {
		return err
	}
	if relay.LocalAddr() == nil {
		t.Fatal("relay without an address")
	}
	return relay.Close()
}

// udpPeer is a UDP socket on loopback counting what reaches it.
func udpPeer(t *testing.T) (*net.UDPConn, chan int) {
	t.Helper()
	pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	got := make(chan int, 10000)
	go func() {
		buf := make([]byte, 2048)
		for {
			n, _, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			got <- n
		}
	}()
	return pc, got
}

// By default the relay reaches no loopback peer: the permission is
// refused and nothing arrives. With AllowPeers (a test network) it
// relays.
func TestTURNPeerAddressDenied(t *testing.T) {
	user, pass := TURNCredentials(testTURNSecret, "a", time.Now().Add(time.Minute))
	for _, allow := range []bool{false, true} {
		srv := startTURN(t, func(c *TURNConfig) {
			if allow {
				c.AllowPeers = LoopbackPrefixes()
			}
		})
		peer, got := udpPeer(t)
		relay, err := turnClient(t, srv.Addr().String(), user, pass).Allocate()
		if err != nil {
			t.Fatal(err)
		}
		_, err = relay.WriteTo([]byte("to a loopback service"), peer.LocalAddr())
		var n int
		wait := 500 * time.Millisecond // long enough for a relayed packet on loopback to show up
		if allow {
			wait = 5 * time.Second // it must arrive: a loaded machine may be slow
		}
		select {
		case n = <-got:
		case <-time.After(wait):
		}
		relay.Close()
		switch {
		case !allow && (err == nil || n > 0 || srv.Stats().PeerDenied == 0):
			t.Fatalf("loopback peer without AllowPeers: write %v, %d bytes arrived, %d denied", err, n, srv.Stats().PeerDenied)
		case allow && (err != nil || n != len("to a loopback service")):
			t.Fatalf("loopback peer with AllowPeers: write %v, %d bytes arrived", err, n)
		}
	}
}

// The filter denies loopback, private, ULA, link-local, unspecified,
// multicast, special ranges and the server's own addresses, allows public
// unicast, and AllowPeers comes first.
func TestTURNPeerFilter(t *testing.T) {
	own := netip.MustParseAddr("203.0.114.7")
	f := newPeerFilter([]netip.Prefix{netip.MustParsePrefix("10.9.0.0/16")}, []netip.Addr{own})
	for s, want := range map[string]bool{
		"127.0.0.1": false, "127.1.2.3": false, "::1": false, "10.0.0.1": false, "172.16.5.4": false,
		"172.31.255.255": false, "192.168.1.1": false, "fc00::1": false, "fd12:3456::1": false,
		"169.254.169.254": false, "fe80::1": false, "0.0.0.0": false, "::": false, "224.0.0.251": false,
		"239.1.2.3": false, "ff02::1": false, "255.255.255.255": false, "100.64.0.1": false,
		"::ffff:127.0.0.1": false, "::ffff:192.168.0.1": false, "64:ff9b::a00:1": false, "2002:c0a8:101::1": false,
		"203.0.114.7": false, "192.0.2.1": false,
		"8.8.8.8": true, "1.1.1.1": true, "203.0.114.8": true, "2606:4700::1111": true, "::ffff:8.8.4.4": true,
		"10.9.1.1": true, "10.8.1.1": false,
	} {
		if got := f.allowed(netip.MustParseAddr(s)); got != want {
			t.Errorf("%s: allowed %v, want %v", s, got, want)
		}
	}
	if f.allowed(netip.Addr{}) || f.allowedAddr(&net.IPAddr{IP: net.IPv4(8, 8, 8, 8)}) {
		t.Error("invalid address or non-UDP/TCP address allowed")
	}
}

// Quotas: a credential gets MaxAllocationsPerUser allocations, everyone
// together MaxAllocations; closing one gives its slot back.
func TestTURNAllocationQuotas(t *testing.T) {
	srv := startTURN(t, func(c *TURNConfig) { c.MaxAllocationsPerUser, c.MaxAllocations = 2, 3 })
	addr := srv.Addr().String()
	creds := func(user string) (string, string) {
		return TURNCredentials(testTURNSecret, user, time.Now().Add(time.Minute))
	}
	ua, pa := creds("a")
	var relays []net.PacketConn
	for i := range 3 {
		r, err := turnClient(t, addr, ua, pa).Allocate()
		if i < 2 && err != nil {
			t.Fatalf("allocation %d: %v", i, err)
		}
		if i == 2 {
			if err == nil || !strings.Contains(err.Error(), "486") {
				t.Fatalf("third allocation of one credential: %v, want 486", err)
			}
			break
		}
		relays = append(relays, r)
	}
	ub, pb := creds("b")
	rb, err := turnClient(t, addr, ub, pb).Allocate()
	if err != nil {
		t.Fatalf("another credential: %v", err)
	}
	uc, pc := creds("c")
	if _, err := turnClient(t, addr, uc, pc).Allocate(); err == nil {
		t.Fatal("allocation over the total")
	}
	if srv.Stats().QuotaRefused != 2 {
		t.Fatalf("quota refusals %d", srv.Stats().QuotaRefused)
	}
	rb.Close()
	eventually(t, "the slot to be given back", func() bool { return srv.Allocations() == 2 })
	if _, err := turnClient(t, addr, uc, pc).Allocate(); err != nil {
		t.Fatalf("after one closed: %v", err)
	}
	for _, r := range relays {
		r.Close()
	}
}

// An allocation relays at most its bandwidth: a burst of 100 kB through
// a 2 kB/s allocation delivers about 2 kB (one second's tokens) and
// drops the rest.
func TestTURNBandwidthCap(t *testing.T) {
	srv := startTURN(t, func(c *TURNConfig) {
		c.AllowPeers = LoopbackPrefixes()
		c.AllocationBytesPerSecond = 2000
	})
	user, pass := TURNCredentials(testTURNSecret, "a", time.Now().Add(time.Minute))
	peer, got := udpPeer(t)
	relay, err := turnClient(t, srv.Addr().String(), user, pass).Allocate()
	if err != nil {
		t.Fatal(err)
	}
	defer relay.Close()
	start := time.Now()
	pkt := make([]byte, 1000)
	for range 100 {
		if _, err := relay.WriteTo(pkt, peer.LocalAddr()); err != nil {
			t.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	// The relay's rate limit is a claim about wall time: let what it
	// relays within 300 ms arrive, then count it against the limit.
	time.Sleep(300 * time.Millisecond)
	total := 0
	for len(got) > 0 {
		total += <-got
	}
	limit := 2000 + int(2000*(elapsed+300*time.Millisecond).Seconds())
	if total == 0 || total > limit {
		t.Fatalf("%d bytes relayed in %v, want 1 to %d", total, elapsed, limit)
	}
	// (loopback UDP may lose some of the burst before the relay)
	if srv.Stats().BytesDropped < 50_000 {
		t.Fatalf("dropped %d bytes", srv.Stats().BytesDropped)
	}
}

// Credentials are tied to the signalling session: they work while the
// peer is registered; when its session ends its allocation ends and the
// same credentials are refused, although they have not expired.
// Credentials past their expiry get no new allocation.
func TestTURNCredentialsTiedToSession(t *testing.T) {
	srv := startTURN(t, nil)
	ts := startServer(t, func(c *Config) {
		c.TURN = &TURNAuth{URLs: []string{srv.URL()}, Secret: testTURNSecret, TTL: 10 * time.Minute, OnSessionEnd: srv.Revoke}
	})
	srv.TieToSessions(ts.Server)
	c := dial(t, ts, 1)
	ice := c.Welcome().ICEServers[0]
	relay, err := turnClient(t, srv.Addr().String(), ice.Username, ice.Credential).Allocate()
	if err != nil {
		t.Fatalf("registered peer: %v", err)
	}
	defer relay.Close()
	if srv.Allocations() != 1 {
		t.Fatalf("%d allocations", srv.Allocations())
	}
	// Another peer's valid-looking credentials, minted for an ID that
	// has no session: refused.
	stranger, pass := TURNCredentials(testTURNSecret, identity(t, 9).ID().Hex(), time.Now().Add(time.Minute))
	if err := allocate(t, srv.Addr().String(), stranger, pass); err == nil {
		t.Fatal("credentials without a session accepted")
	}
	c.Close()
	eventually(t, "the allocation to end with the session", func() bool { return srv.Allocations() == 0 })
	if err := allocate(t, srv.Addr().String(), ice.Username, ice.Credential); err == nil {
		t.Fatal("credentials of an ended session accepted")
	}
	// Expired credentials of a live session: no new allocation.
	c2 := dial(t, ts, 2)
	old, oldPass := TURNCredentials(testTURNSecret, c2.ID().Hex(), time.Now().Add(-time.Second))
	if err := allocate(t, srv.Addr().String(), old, oldPass); err == nil {
		t.Fatal("expired credentials accepted for a new allocation")
	}
	if srv.Stats().AuthRefused < 3 {
		t.Fatalf("auth refusals %d", srv.Stats().AuthRefused)
	}
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
