package server

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server/servertest"
	"github.com/peerlearn/peerlearn/types/ident"
)

// dialFrom opens a raw websocket from local address ip (any 127.x.y.z
// works on loopback); closed at cleanup.
func dialFrom(t *testing.T, ts *testServer, ip string) (*raw, *http.Response, error) {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 3 * time.Second}
	hc := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, ts.wsURL(), &websocket.DialOptions{HTTPClient: hc})
	if err != nil {
		return nil, resp, err
	}
	conn.SetReadLimit(signal.MaxMessageSize)
	t.Cleanup(func() { conn.CloseNow() })
	return &raw{t: t, conn: conn}, resp, nil
}

// limitLoopback: per-address limits on loopback too (each 127.x address
// its own client), as on a public address.
func limitLoopback(c *Config) { c.AddrLimits.Exempt = nil }

// The socket flood: one address opening the server's 64
// handshake slots (all of them on the old code, locking every newcomer
// out) gets HandshakesPerIP of them; a newcomer from another address
// registers.
func TestHandshakesPerIP(t *testing.T) {
	ts := startServer(t, func(c *Config) {
		limitLoopback(c)
		c.HandshakeTimeout = 10 * time.Second // the flood outlives the newcomer's handshake
	})
	held, refused := 0, 0
	for range ts.cfg.MaxHandshakes {
		_, resp, err := dialFrom(t, ts, "127.0.0.2")
		switch {
		case err == nil:
			held++
		case resp != nil && resp.StatusCode == http.StatusTooManyRequests:
			refused++
		default:
			t.Fatalf("flood: %v", err)
		}
	}
	if want := ts.cfg.AddrLimits.HandshakesPerIP; held != want || refused != ts.cfg.MaxHandshakes-want {
		t.Fatalf("one address held %d handshakes (refused %d), want %d", held, refused, want)
	}
	c := dial(t, ts, 1) // from 127.0.0.1
	if len(c.Welcome().Contacts) != 0 {
		t.Fatalf("welcome %+v", c.Welcome())
	}
	st := ts.Stats()
	if st.AddrLimited["handshakes_per_ip"] != uint64(refused) || st.Refusals[signal.CodeServerFull] != uint64(refused) {
		t.Fatalf("counted %v, refusals %v; want %d", st.AddrLimited, st.Refusals, refused)
	}
	// A finished handshake frees its slot for the same address.
	r, _, err := dialFrom(t, ts, "127.0.0.3")
	if err != nil {
		t.Fatal(err)
	}
	r.register(ts.tid, 2)
	for range ts.cfg.AddrLimits.HandshakesPerIP {
		if _, _, err := dialFrom(t, ts, "127.0.0.3"); err != nil {
			t.Fatalf("registered peer's address cannot open handshakes: %v", err)
		}
	}
}

// The registration flood: one address registering fresh
// identities (100 filled the default task on the old code, refusing
// real peers with task-full) gets PeersPerIP slots, or half of a small
// task's; the newcomer from another address registers; a slot given
// back can be taken again; re-registering an identity is not refused.
func TestPeersPerIP(t *testing.T) {
	ts := startServer(t, limitLoopback)
	taskMax := ts.tasks[ts.tid].spec.MaxPeers
	registered := 0
	var first *raw
	for i := range taskMax {
		r, _, err := dialFrom(t, ts, "127.0.0.2")
		if err != nil {
			t.Fatal(err)
		}
		m := r.hello(ts.tid, byte(10+i))
		if m.Type == signal.MsgError {
			if m.Error.Code != signal.CodeTaskFull {
				t.Fatalf("refused with %v", m.Error.Code)
			}
			break
		}
		if m.Type != signal.MsgWelcome {
			t.Fatalf("got %v", m.Type)
		}
		if first == nil {
			first = r
		}
		registered++
	}
	if want := min(ts.cfg.AddrLimits.PeersPerIP, taskMax/2); registered != want {
		t.Fatalf("one address registered %d of %d, want %d", registered, taskMax, want)
	}
	dial(t, ts, 1) // the newcomer, from 127.0.0.1
	if n := ts.Stats().AddrLimited["peers_per_ip"]; n != 1 {
		t.Fatalf("peers_per_ip refusals %d", n)
	}
	// The same identity again from the same address replaces itself.
	r, _, err := dialFrom(t, ts, "127.0.0.2")
	if err != nil {
		t.Fatal(err)
	}
	r.register(ts.tid, 10)
	first.wantClosed()
	// One leaving gives its slot back.
	r.conn.Close(websocket.StatusNormalClosure, "")
	eventually(t, "the slot to be given back", func() bool {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		return ts.tasks[ts.tid].addrs.ip[netip.MustParseAddr("127.0.0.2")] == registered-1
	})
	again, _, err := dialFrom(t, ts, "127.0.0.2")
	if err != nil {
		t.Fatal(err)
	}
	again.register(ts.tid, 200)
}

// A small task cannot be filled from one address: TaskShare caps it.
func TestPeersPerIPSmallTask(t *testing.T) {
	ts := startServer(t, func(c *Config) {
		limitLoopback(c)
		c.Tasks[0].MaxPeers = 4
	})
	for b := byte(1); b <= 2; b++ {
		r, _, err := dialFrom(t, ts, "127.0.0.2")
		if err != nil {
			t.Fatal(err)
		}
		r.register(ts.tid, b)
	}
	r, _, err := dialFrom(t, ts, "127.0.0.2")
	if err != nil {
		t.Fatal(err)
	}
	if m := r.hello(ts.tid, 3); m.Type != signal.MsgError || m.Error.Code != signal.CodeTaskFull {
		t.Fatalf("third from one address in a task of 4: %v %+v", m.Type, m.Error)
	}
	dial(t, ts, 4)
	dial(t, ts, 5)
}

// hello answers the challenge as identity b and returns the reply (a
// welcome or an error).
func (r *raw) hello(tid ident.Task, b byte) *signal.Message {
	r.t.Helper()
	ch := r.mustRead(signal.MsgChallenge)
	if err := r.send(&signal.Message{Type: signal.MsgHello, Hello: signal.SignHello(identity(r.t, b), ch.Challenge.Nonce, tid)}); err != nil {
		r.t.Fatal(err)
	}
	return r.mustReadAny()
}

// Addresses map to subnets: IPv4 /24, IPv6 /48, loopback per address,
// IPv4-mapped IPv6 as IPv4; exempt networks and unparsable addresses are
// not limited.
func TestClientOf(t *testing.T) {
	l := DefaultAddrLimits()
	l.Exempt = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
	for remote, want := range map[string]string{
		"10.1.2.3:5000":            "10.1.2.0/24",
		"[::ffff:10.1.2.99]:1":     "10.1.2.0/24",
		"[2001:db8:1:2::5]:443":    "2001:db8:1::/48",
		"[fe80::1%eth0]:1":         "fe80::/48",
		"127.0.0.2:1":              "127.0.0.2/32",
		"[::1]:1":                  "::1/128",
		"192.0.2.7:1":              "",
		"not-an-address":           "",
		"[2001:db8:ffff::1]:65535": "2001:db8:ffff::/48",
	} {
		c := l.clientOf(remote)
		got := ""
		if c.limited() {
			got = c.subnet.String()
		}
		if got != want {
			t.Errorf("%s: subnet %q, want %q", remote, got, want)
		}
	}
	counts := newAddrCounts()
	a, b := l.clientOf("10.1.2.3:1"), l.clientOf("10.1.2.4:1")
	counts.add(a, 1)
	counts.add(a, 1)
	if ipOver, subnetOver := counts.over(b, 1, 2); ipOver || !subnetOver {
		t.Fatalf("neighbour in the /24: ip over %v, subnet over %v", ipOver, subnetOver)
	}
	if ipOver, _ := counts.over(a, 2, 3); !ipOver {
		t.Fatal("address not over")
	}
	counts.add(a, -2)
	if len(counts.ip) != 0 || len(counts.subnet) != 0 {
		t.Fatalf("counts not emptied: %v %v", counts.ip, counts.subnet)
	}
	if l.taskCap(32, 100) != 32 || l.taskCap(32, 10) != 5 || l.taskCap(32, 1) != 1 {
		t.Fatal("taskCap")
	}
}

// Subnets on a real path (loopback cannot show them: each loopback
// address is its own subnet): hellos from four addresses of one /24
// share its PeersPerSubnet; another /24 is not affected; an upgrade from
// a /24 whose handshake slots are taken gets 429.
func TestSubnetLimits(t *testing.T) {
	spec, _ := servertest.Task(t, "subnet")
	cfg := DefaultConfig()
	cfg.Tasks = []task.Spec{spec}
	cfg.AddrLimits.PeersPerIP, cfg.AddrLimits.PeersPerSubnet = 2, 3
	cfg.AddrLimits.HandshakesPerIP, cfg.AddrLimits.HandshakesPerSubnet = 2, 3
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tid, _ := spec.ID()
	hello := func(remote string, b byte) signal.Code {
		sess := &session{srv: s, remote: remote, ip: remoteIP(remote), addr: s.cfg.AddrLimits.clientOf(remote)}
		s.mu.Lock()
		s.handshakes++
		s.pending.add(sess.addr, 1)
		s.mu.Unlock()
		h := signal.SignHello(identity(t, b), make([]byte, signal.NonceSize), tid)
		_, code, _ := s.register(sess, h)
		return code
	}
	for i, remote := range []string{"198.51.100.1:1", "198.51.100.2:1", "198.51.100.3:1"} {
		if code := hello(remote, byte(i+1)); code != 0 {
			t.Fatalf("%s: %v", remote, code)
		}
	}
	if code := hello("198.51.100.4:1", 4); code != signal.CodeTaskFull {
		t.Fatalf("fourth of the /24: %v, want task-full", code)
	}
	if code := hello("198.51.101.4:1", 5); code != 0 {
		t.Fatalf("another /24: %v", code)
	}
	if code := hello("[2001:db8:1:2::1]:1", 6); code != 0 {
		t.Fatalf("IPv6: %v", code)
	}
	if st := s.Stats(); st.AddrLimited["peers_per_subnet"] != 1 {
		t.Fatalf("counted %v", st.AddrLimited)
	}
	// Handshakes: fill the /24's slots, then an upgrade from it is 429.
	s.mu.Lock()
	s.pending.add(s.cfg.AddrLimits.clientOf("203.0.113.1:1"), 3)
	s.mu.Unlock()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/signal", nil)
	req.RemoteAddr = "203.0.113.77:5555"
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusTooManyRequests || s.Stats().AddrLimited["handshakes_per_subnet"] != 1 {
		t.Fatalf("upgrade from a full /24: %d, counted %v", rec.Code, s.Stats().AddrLimited)
	}
}

// With MetricsSeparate, /metrics is not on Handler but on MetricsHandler.
func TestMetricsSeparate(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.MetricsSeparate = true })
	if code, _, _ := get(t, ts.httpURL()+"/metrics"); code != http.StatusNotFound {
		t.Fatalf("public /metrics: %d", code)
	}
	rec := httptest.NewRecorder()
	ts.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "peerlearn_signal_addr_limited_total") {
		t.Fatalf("metrics handler: %d", rec.Code)
	}
}
