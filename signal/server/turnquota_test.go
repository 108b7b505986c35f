package server

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/peerlearn/peerlearn/signal"
)

// dialRawFrom opens a websocket to ts from the local address from (any
// 127/8 address is this machine's); closed at cleanup.
func dialRawFrom(t *testing.T, ts *testServer, from netip.Addr) *raw {
	t.Helper()
	r, _, err := dialURLFrom(t, ts.wsURL(), from, nil)
	if err != nil {
		t.Fatalf("dial from %v: %v", from, err)
	}
	return r
}

// dialURLFrom opens a websocket to url from the local address from with
// headers h; closed at cleanup.
func dialURLFrom(t *testing.T, url string, from netip.Addr, h http.Header) (*raw, *http.Response, error) {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: from.AsSlice()}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{
		HTTPHeader: h,
		HTTPClient: &http.Client{Transport: &http.Transport{DialContext: d.DialContext}},
	})
	if err != nil {
		return nil, resp, err
	}
	conn.SetReadLimit(signal.MaxMessageSize)
	t.Cleanup(func() { conn.CloseNow() })
	return &raw{t: t, conn: conn}, resp, nil
}

// turnWithSessions runs an embedded TURN server (after mutate, no exempt
// networks: the tests' 127/8 addresses stand for clients) tied to a
// signalling server's sessions, as cmd/signalserver wires them.
func turnWithSessions(t *testing.T, mutate func(*TURNConfig)) (*TURN, *testServer) {
	t.Helper()
	srv := startTURN(t, func(c *TURNConfig) {
		c.Exempt = nil
		if mutate != nil {
			mutate(c)
		}
	})
	ts := startServer(t, func(c *Config) {
		c.MaxPeers = 200
		c.Tasks[0].MaxPeers = 200
		c.TURN = &TURNAuth{URLs: []string{srv.URL()}, Secret: testTURNSecret, TTL: 10 * time.Minute, OnSessionEnd: srv.Revoke}
	})
	srv.TieToSessions(ts.Server)
	return srv, ts
}

// registerFrom registers identity b from the address from and returns
// its connection and TURN credentials.
func registerFrom(t *testing.T, ts *testServer, from netip.Addr, b byte) (*raw, signal.ICEServer) {
	t.Helper()
	r := dialRawFrom(t, ts, from)
	w := r.register(ts.tid, b)
	for _, s := range w.ICEServers {
		if s.Username != "" {
			return r, s
		}
	}
	t.Fatalf("welcome without TURN credentials: %+v", w.ICEServers)
	return nil, signal.ICEServer{}
}

// The relay cannot be drained: 63 registrations from 3 subnets, each
// asking for its 16 allocations from its own address, took 998 of the
// 1,000 and refused the next honest peer (486). With the default
// per-subnet quota they hold 3 x 256 and the newcomer gets a relay. When
// a hostile session ends its allocations end and its charges with them.
func TestTURNRelayNotDrainedFromThreeSubnets(t *testing.T) {
	srv, ts := turnWithSessions(t, nil)
	def := DefaultTURNConfig()
	addr := srv.Addr().String()
	type hostile struct {
		conn *raw
		ip   netip.Addr
		n    int
	}
	var hostiles []hostile
	refused := 0
	for i := range 63 {
		ip := netip.AddrFrom4([4]byte{127, byte(1 + i%3), 0, byte(1 + i/3)})
		conn, ice := registerFrom(t, ts, ip, byte(10+i))
		h := hostile{conn: conn, ip: ip}
		for range def.MaxAllocationsPerUser {
			relay, err := turnClientFrom(t, ip, addr, ice.Username, ice.Credential).Allocate()
			if err != nil {
				if !strings.Contains(err.Error(), "486") {
					t.Fatalf("hostile %d from %v: %v, want 486 or a relay", i, ip, err)
				}
				refused++
				continue
			}
			t.Cleanup(func() { relay.Close() })
			h.n++
		}
		hostiles = append(hostiles, h)
	}
	wantHeld := 3 * def.MaxAllocationsPerSubnet
	// (The server counts requests: a retransmitted Allocate is refused
	// again, so its count may exceed the clients'.)
	st := srv.Stats()
	if n := srv.Allocations(); n != wantHeld || refused != 63*def.MaxAllocationsPerUser-wantHeld || st.AddrQuotaRefused < uint64(refused) {
		t.Fatalf("hostiles hold %d allocations (want %d), %d refused (486), %d refused by address or subnet", n, wantHeld, refused, st.AddrQuotaRefused)
	}
	t.Logf("63 hostile registrations from 3 subnets: %d allocations held, %d refused (486)", srv.Allocations(), refused)

	_, ice := registerFrom(t, ts, netip.MustParseAddr("127.4.0.1"), 200)
	relay, err := turnClientFrom(t, netip.MustParseAddr("127.4.0.1"), addr, ice.Username, ice.Credential).Allocate()
	if err != nil {
		t.Fatalf("honest newcomer refused a relay: %v", err)
	}
	relay.Close()
	eventually(t, "the newcomer's relay to close", func() bool { return srv.Allocations() == wantHeld })

	// A hostile session that holds allocations ends: so do they, and its
	// subnet may allocate again.
	var gone hostile
	for _, h := range hostiles {
		if h.n > 0 {
			gone = h
			break
		}
	}
	gone.conn.conn.Close(websocket.StatusNormalClosure, "")
	eventually(t, "the hostile's allocations to end with its session", func() bool { return srv.Allocations() == wantHeld-gone.n })
	_, ice = registerFrom(t, ts, gone.ip, 201)
	if relay, err = turnClientFrom(t, gone.ip, addr, ice.Username, ice.Credential).Allocate(); err != nil {
		t.Fatalf("after %d allocations of %v's subnet ended: %v", gone.n, gone.ip, err)
	}
	relay.Close()
}

// An allocation is charged to its TURN source address and to its user's
// signalling address: registering from one address and relaying from
// many, or the reverse, meets the same bound.
func TestTURNQuotaChargesSessionAndSourceAddress(t *testing.T) {
	srv, ts := turnWithSessions(t, func(c *TURNConfig) {
		c.MaxAllocationsPerUser, c.MaxAllocationsPerIP, c.MaxAllocationsPerSubnet = 2, 3, 100
	})
	addr := srv.Addr().String()
	session := netip.MustParseAddr("127.7.0.1")
	allocate := func(from netip.Addr, ice signal.ICEServer) error {
		relay, err := turnClientFrom(t, from, addr, ice.Username, ice.Credential).Allocate()
		if err == nil {
			t.Cleanup(func() { relay.Close() })
		}
		return err
	}
	// Two peers registered from one address relay from two others: the
	// session address's quota (3) binds.
	var got []error
	for i := range 2 {
		_, ice := registerFrom(t, ts, session, byte(1+i))
		for j := range 2 {
			got = append(got, allocate(netip.AddrFrom4([4]byte{127, byte(8 + i), 0, byte(1 + j)}), ice))
		}
	}
	if got[0] != nil || got[1] != nil || got[2] != nil || got[3] == nil {
		t.Fatalf("from one registration address: %v, want 3 relays and a refusal", got)
	}
	// A peer registered elsewhere relaying from that address: its
	// source's quota binds.
	_, ice := registerFrom(t, ts, netip.MustParseAddr("127.11.0.1"), 3)
	if err := allocate(session, ice); err == nil || !strings.Contains(err.Error(), "486") {
		t.Fatalf("relaying from an address at its quota: %v, want 486", err)
	}
	if err := allocate(netip.MustParseAddr("127.12.0.1"), ice); err != nil {
		t.Fatalf("from a fresh address: %v", err)
	}
	if st := srv.Stats(); st.AddrQuotaRefused < 2 {
		t.Fatalf("address refusals %d, want 2 (more with retransmissions)", st.AddrQuotaRefused)
	}
}

// Configured quotas must nest: per user <= per address <= per subnet.
func TestTURNQuotaConfig(t *testing.T) {
	for _, q := range [][4]int{{0, 1, 1, 1}, {4, 3, 8, 10}, {2, 8, 4, 10}, {4, 8, 16, 3}} {
		cfg := DefaultTURNConfig()
		cfg.ListenAddr, cfg.Secret = "127.0.0.1:0", testTURNSecret
		cfg.MaxAllocationsPerUser, cfg.MaxAllocationsPerIP, cfg.MaxAllocationsPerSubnet, cfg.MaxAllocations = q[0], q[1], q[2], q[3]
		if srv, err := StartTURN(cfg); err == nil {
			srv.Close()
			t.Errorf("quotas %v accepted", q)
		} else if !strings.Contains(err.Error(), fmt.Sprint(q[1], " per address")) {
			t.Errorf("quotas %v: %v", q, err)
		}
	}
}
