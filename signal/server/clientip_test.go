package server

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal/server/servertest"
)

// The client address: the TCP peer's, unless the peer is a trusted
// proxy; then the right-most untrusted X-Forwarded-For hop, or X-Real-IP,
// whichever header the proxies are configured to set. A header from an
// untrusted peer is ignored, and so is the header the proxies do not set.
func TestClientIP(t *testing.T) {
	xff := ProxyTrust{Header: HeaderForwardedFor, Proxies: []netip.Prefix{
		netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8")}}
	realIP := xff
	realIP.Header = HeaderRealIP
	for _, tc := range []struct {
		name               string
		trust              ProxyTrust
		remote             string
		xff, real          []string
		want               string
		forwarded, missing bool
	}{
		{"untrusted peer, spoofed header", xff, "198.51.100.9:4000", []string{"192.0.2.1"}, []string{"192.0.2.2"}, "198.51.100.9", false, false},
		{"untrusted peer, no header", xff, "[2001:db8::9]:4000", nil, nil, "2001:db8::9", false, false},
		{"proxy sets the client", xff, "127.0.0.1:5000", []string{"203.0.113.7"}, nil, "203.0.113.7", true, false},
		{"client spoofed a hop, proxy appended", xff, "127.0.0.1:5000", []string{"192.0.2.1, 203.0.113.7"}, nil, "203.0.113.7", true, false},
		{"spoofed trusted hop left of the client", xff, "127.0.0.1:5000", []string{"10.1.1.1, 203.0.113.7"}, nil, "203.0.113.7", true, false},
		{"two trusted proxies", xff, "127.0.0.1:5000", []string{"192.0.2.1, 203.0.113.7, 10.0.0.5"}, nil, "203.0.113.7", true, false},
		{"header lines in order", xff, "127.0.0.1:5000", []string{"192.0.2.1", "203.0.113.7"}, nil, "203.0.113.7", true, false},
		{"ports and brackets", xff, "127.0.0.1:5000", []string{"[2001:db8::7]:443"}, nil, "2001:db8::7", true, false},
		{"IPv4-mapped", xff, "[::ffff:127.0.0.1]:5000", []string{"::ffff:203.0.113.7"}, nil, "203.0.113.7", true, false},
		{"every hop trusted", xff, "127.0.0.1:5000", []string{"10.0.0.5"}, nil, "10.0.0.5", true, false},
		{"no header from the proxy", xff, "127.0.0.1:5000", nil, []string{"203.0.113.7"}, "127.0.0.1", false, true},
		{"unparsable hop from the proxy", xff, "127.0.0.1:5000", []string{"203.0.113.7, unknown"}, nil, "127.0.0.1", false, true},
		{"unparsable hop behind a trusted one", xff, "127.0.0.1:5000", []string{"unknown, 10.0.0.5"}, nil, "10.0.0.5", true, false},
		{"X-Real-IP", realIP, "127.0.0.1:5000", []string{"192.0.2.1"}, []string{"203.0.113.7"}, "203.0.113.7", true, false},
		{"X-Real-IP twice", realIP, "127.0.0.1:5000", nil, []string{"192.0.2.1", "203.0.113.7"}, "127.0.0.1", false, true},
		{"X-Real-IP from an untrusted peer", realIP, "198.51.100.9:1", nil, []string{"203.0.113.7"}, "198.51.100.9", false, false},
		{"no proxies trusted", DefaultProxyTrust(), "127.0.0.1:5000", []string{"203.0.113.7"}, nil, "127.0.0.1", false, false},
	} {
		h := http.Header{}
		for _, v := range tc.xff {
			h.Add(HeaderForwardedFor, v)
		}
		for _, v := range tc.real {
			h.Add(HeaderRealIP, v)
		}
		ip, fwd, missing := tc.trust.clientIP(tc.remote, h)
		if ip.String() != tc.want || fwd != tc.forwarded || missing != tc.missing {
			t.Errorf("%s: %v forwarded %v missing %v, want %s %v %v", tc.name, ip, fwd, missing, tc.want, tc.forwarded, tc.missing)
		}
	}
}

// Trusting a proxy turns the exemptions of its network off: a client it
// fails to forward has its address.
func TestProxyTrustConfig(t *testing.T) {
	one, _ := servertest.Task(t, "proxy")
	spec := []task.Spec{one}
	for name, mutate := range map[string]func(*Config){
		"admission exempts the proxy": func(c *Config) { c.AddrLimits.Exempt = nil },
		"limits exempt the proxy":     func(c *Config) { c.Admission.Exempt = nil },
		"unknown header":              func(c *Config) { c.Admission.Exempt, c.AddrLimits.Exempt, c.Proxies.Header = nil, nil, "Forwarded" },
	} {
		cfg := DefaultConfig()
		cfg.Tasks = spec
		cfg.Proxies.Proxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		mutate(&cfg)
		if err := cfg.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	cfg := DefaultConfig()
	cfg.Tasks = spec
	cfg.Proxies.Proxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	cfg.Admission.Exempt, cfg.AddrLimits.Exempt = []netip.Prefix{netip.MustParsePrefix("192.168.0.0/16")}, nil
	if err := cfg.Validate(); err != nil {
		t.Errorf("an exempt LAN beside a trusted proxy: %v", err)
	}
}

// On a live server: through a trusted proxy (the test dials from
// 127.0.0.1) each forwarded address has its own handshake slots; from an
// untrusted peer (127.0.0.2) the same header is ignored and its slots are
// its own address's, and the log names the forwarded address.
func TestForwardedAddressLimits(t *testing.T) {
	ts := startServer(t, func(c *Config) {
		c.Proxies.Proxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		c.AddrLimits.Exempt, c.Admission.Exempt = nil, nil
		c.AddrLimits.HandshakesPerIP = 2
	})
	open := func(from, forwarded string) int {
		h := http.Header{HeaderForwardedFor: []string{forwarded}}
		_, resp, err := dialURLFrom(t, ts.wsURL(), netip.MustParseAddr(from), h)
		if err != nil {
			if resp == nil {
				t.Fatalf("dial: %v", err)
			}
			return resp.StatusCode
		}
		return http.StatusSwitchingProtocols
	}
	const ok, limited = http.StatusSwitchingProtocols, http.StatusTooManyRequests
	got := []int{
		open("127.0.0.1", "198.51.100.1"), open("127.0.0.1", "198.51.100.1"), open("127.0.0.1", "198.51.100.1"),
		open("127.0.0.1", "198.51.100.2"),
		open("127.0.0.2", "198.51.100.3"), open("127.0.0.2", "198.51.100.4"), open("127.0.0.2", "198.51.100.5"),
	}
	want := []int{ok, ok, limited, ok, ok, ok, limited}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("HTTP statuses %v, want %v", got, want)
		}
	}
	logs := strings.Join(ts.logs.all(), "\n")
	if !strings.Contains(logs, "198.51.100.1 via 127.0.0.1:") || strings.Contains(logs, "198.51.100.5") {
		t.Errorf("logs do not name the forwarded address (and only it):\n%s", logs)
	}
}
