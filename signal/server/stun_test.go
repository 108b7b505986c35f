package server

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pion/stun/v4"
)

// The STUN-only server answers a binding request with the client's
// address, and refuses to relay.
func TestSTUNServer(t *testing.T) {
	s, err := StartSTUN("127.0.0.1:0", t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := stun.MustBuild(stun.TransactionID, stun.BindingRequest, stun.Fingerprint)
	conn.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := conn.WriteTo(req.Raw, s.Addr()); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1500)
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatalf("no binding response: %v", err)
	}
	res := &stun.Message{Raw: buf[:n]}
	var mapped stun.XORMappedAddress
	if err := res.Decode(); err != nil || res.Type != stun.BindingSuccess || res.TransactionID != req.TransactionID {
		t.Fatalf("response %v: %v", res, err)
	}
	if err := mapped.GetFrom(res); err != nil {
		t.Fatal(err)
	}
	if local := conn.LocalAddr().(*net.UDPAddr); !mapped.IP.Equal(local.IP) || mapped.Port != local.Port {
		t.Fatalf("mapped %v, want %v", mapped, local)
	}
	user, pass := TURNCredentials(testTURNSecret, "x", time.Now().Add(time.Minute))
	if err := allocate(t, s.Addr().String(), user, pass); err == nil {
		t.Fatal("the STUN server relayed")
	}
}

// With STUNPort every welcome names this machine's STUN server by the
// host the peer dialled.
func TestWelcomeNamesSTUNByHost(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.STUNPort = 3479 })
	ice := dial(t, ts, 1).Welcome().ICEServers
	host, _, _ := net.SplitHostPort(ts.addr)
	if len(ice) != 1 || ice[0].URLs[0] != "stun:"+net.JoinHostPort(host, strconv.Itoa(3479)) {
		t.Fatalf("ICE servers %+v", ice)
	}
	for hostport, want := range map[string]string{
		"learn.example.org":      "learn.example.org",
		"learn.example.org:443":  "learn.example.org",
		"[2001:db8::1]:443":      "2001:db8::1",
		"192.0.2.1":              "192.0.2.1",
		"evil.org?x=1":           "",
		"a..b":                   "",
		"[fe80::1%25eth0]:1":     "",
		"":                       "",
		strings.Repeat("a", 300): "",
	} {
		if got := stunHost(hostport); got != want {
			t.Errorf("stunHost(%q) = %q, want %q", hostport, got, want)
		}
	}
}
