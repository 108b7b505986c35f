package server

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/internal/nginx"
	"github.com/peerlearn/peerlearn/internal/proctest"
	"github.com/peerlearn/peerlearn/signal"
)

// startNginx runs Debian's nginx on loopback in front of upstream, with
// the configuration DEPLOY.md shows (internal/nginx); skipped without it,
// except under CI=true. It returns the proxy's address.
func startNginx(t *testing.T, upstream string) string {
	t.Helper()
	px, err := nginx.Start(t.TempDir(), upstream)
	switch {
	case errors.Is(err, nginx.ErrMissing) && os.Getenv("CI") != "true":
		t.Skip(err)
	case err != nil:
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !px.Stop() {
			t.Errorf("nginx did not stop on SIGTERM")
		}
		if t.Failed() {
			if b, err := os.ReadFile(px.Log()); err == nil {
				t.Logf("--- nginx stderr:\n%s", proctest.Tail(b, 6000))
			}
		}
	})
	return px.Addr
}

// identityN returns a deterministic identity for any n.
func identityN(t testing.TB, n int) signal.Identity {
	t.Helper()
	seed := make([]byte, 32)
	seed[0], seed[1], seed[2], seed[31] = byte(n), byte(n>>8), byte(n>>16), 0x5a
	id, err := signal.IdentityFromSeed(seed)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// tryRegister runs the handshake on r as id and returns the refusal's
// code (0: welcomed).
func tryRegister(r *raw, ts *testServer, id signal.Identity) signal.Code {
	ch, err := r.read()
	if err != nil || ch.Type != signal.MsgChallenge {
		return signal.CodeUnexpected
	}
	if err := r.send(&signal.Message{Type: signal.MsgHello, Hello: signal.SignHello(id, ch.Challenge.Nonce, ts.tid)}); err != nil {
		return signal.CodeUnexpected
	}
	m, err := r.read()
	switch {
	case err != nil:
		return signal.CodeUnexpected
	case m.Type == signal.MsgWelcome:
		return 0
	case m.Type == signal.MsgError:
		return m.Error.Code
	}
	return signal.CodeUnexpected
}

// The deployment DEPLOY.md describes: the server on 127.0.0.1 behind
// nginx, trusted for the client address. Through the proxy every
// connection came from 127.0.0.1, loopback was exempt from admission
// counting, and one address had every handshake slot: 2,500 of 2,500
// admissions went through, and an honest newcomer got 503 behind 64 idle
// sockets. Now one client address (127.0.2.1, sending spoofed
// X-Forwarded-For headers) gets exactly its admission burst out of 2,500
// registrations and its HandshakesPerIP of 64 idle sockets, and
// newcomers from other addresses (127.0.3.1, 127.0.4.1: other /24s, as
// admission counts subnets too) join within 5 s during each flood.
func TestBehindNginx(t *testing.T) {
	ts := startServer(t, func(c *Config) {
		c.Proxies.Proxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		c.AddrLimits.Exempt, c.Admission.Exempt = nil, nil // cmd/signalserver's defaults with -trusted-proxies
		c.HandshakeTimeout = 10 * time.Second              // the idle sockets hold their slots through the test
	})
	url := "ws://" + startNginx(t, ts.addr) + "/signal"
	if b, err := os.ReadFile("../../docs/DEPLOY.md"); err != nil {
		t.Fatal(err)
	} else {
		for _, line := range strings.Split(fmt.Sprintf(nginx.Location, "127.0.0.1:8080"), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.Contains(string(b), line) {
				t.Errorf("DEPLOY.md lacks the tested nginx line %q", line)
			}
		}
	}
	attacker := netip.MustParseAddr("127.0.2.1")
	def := DefaultConfig()
	// newcomer registers a fresh identity through the proxy from from and
	// reports how long it took; it must be welcomed within 5 s.
	newcomer := func(from netip.Addr, n int) time.Duration {
		start := time.Now()
		r, resp, err := dialURLFrom(t, url, from, nil)
		if err != nil {
			t.Fatalf("newcomer from %v: %v (%v)", from, err, resp)
		}
		code := tryRegister(r, ts, identityN(t, n))
		joined := time.Since(start)
		if code != 0 || joined > 5*time.Second {
			t.Fatalf("newcomer from %v: refusal %v after %v, want a welcome within 5 s", from, code, joined)
		}
		return joined
	}

	// A burst of 2,500 registrations from one address, each with fresh
	// keys and a spoofed X-Forwarded-For: the address gets its admission
	// burst, no more; a newcomer joins in the middle of it.
	const burst = 2500
	half := make(chan struct{})
	type tally struct{ admitted, limited, other int }
	done := make(chan tally)
	go func() {
		var c tally
		defer func() { done <- c }()
		for i := range burst {
			if i == burst/2 {
				close(half)
			}
			h := http.Header{HeaderForwardedFor: []string{fmt.Sprintf("198.51.%d.%d", i/250, i%250)}}
			r, _, err := dialURLFrom(t, url, attacker, h)
			if err != nil {
				c.other++ // 429: the address's handshake slots are busy
				continue
			}
			switch tryRegister(r, ts, identityN(t, 1+i)) {
			case 0:
				c.admitted++
			case signal.CodeAdmissionLimited:
				c.limited++
			default:
				c.other++
			}
			r.conn.CloseNow()
		}
	}()
	<-half
	joinedBurst := newcomer(netip.MustParseAddr("127.0.3.1"), 1<<20)
	b := <-done
	if b.admitted != def.Admission.IPBurst || b.limited < burst/2 {
		t.Fatalf("one address through the proxy: %d of %d registrations admitted (want %d), %d admission-limited, %d refused otherwise",
			b.admitted, burst, def.Admission.IPBurst, b.limited, b.other)
	}

	// 64 idle sockets from one address (upgraded, silent): it gets its
	// HandshakesPerIP slots, the rest 429; a newcomer joins meanwhile.
	var idle, refused atomic.Int32
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, resp, err := dialURLFrom(t, url, attacker, http.Header{HeaderForwardedFor: []string{fmt.Sprintf("192.0.2.%d", i)}})
			switch {
			case err == nil:
				idle.Add(1)
			case resp != nil && resp.StatusCode == http.StatusTooManyRequests:
				refused.Add(1)
			default:
				t.Errorf("idle socket %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if int(idle.Load()) != def.AddrLimits.HandshakesPerIP {
		t.Fatalf("one address held %d idle sockets, want %d", idle.Load(), def.AddrLimits.HandshakesPerIP)
	}
	joinedIdle := newcomer(netip.MustParseAddr("127.0.4.1"), 1<<21)
	t.Logf("through nginx: one address got %d admissions of %d registrations (%d admission-limited, %d refused at the upgrade); "+
		"newcomer joined in %v mid-burst; %d of 64 idle sockets held (%d got 429), newcomer joined in %v",
		b.admitted, burst, b.limited, b.other, joinedBurst.Round(time.Millisecond), idle.Load(), refused.Load(), joinedIdle.Round(time.Millisecond))
	// The log names the forwarded address, never a spoofed one (the
	// first 1,000 lines are kept: the burst's).
	logs := strings.Join(ts.logs.all(), "\n")
	if !strings.Contains(logs, "127.0.2.1 via 127.0.0.1:") || strings.Contains(logs, "198.51.") {
		t.Errorf("the log does not name the client's forwarded address, or names a spoofed one")
	}
}
