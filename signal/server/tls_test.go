package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal"
	"github.com/peerlearn/peerlearn/signal/server/servertest"
	"github.com/peerlearn/peerlearn/types/ident"
)

// serveTLS serves a one-task server with the web page over TLS with a
// fresh self-signed certificate; it returns the address and the
// certificate's fingerprint.
func serveTLS(t *testing.T) (*Server, string, string) {
	t.Helper()
	web := t.TempDir()
	if err := os.WriteFile(filepath.Join(web, "index.html"), []byte("<h1>PeerLearn page</h1>"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, _ := servertest.Task(t, "tls")
	cfg := DefaultConfig()
	cfg.Tasks, cfg.WebDir = []task.Spec{spec}, web
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tc, _, finger, err := SelfSignedTLS([]string{"localhost", "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.ServeTLS(ln, tc) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		if err := <-done; err != nil {
			t.Errorf("ServeTLS: %v", err)
		}
	})
	return s, ln.Addr().String(), finger
}

func pinnedClient(t *testing.T, finger string) *http.Client {
	t.Helper()
	tc, err := PinnedTLSConfig(finger)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: tc}}
}

// Over TLS with a self-signed certificate: a client pinning the
// fingerprint gets the page (with HSTS) and registers over wss; a client
// pinning another fingerprint, one trusting the system CAs, and a plain
// HTTP client get nothing.
func TestServeTLSSelfSigned(t *testing.T) {
	s, addr, finger := serveTLS(t)
	if len(finger) != 95 || strings.Count(finger, ":") != 31 {
		t.Fatalf("fingerprint %q", finger)
	}
	resp, err := pinnedClient(t, finger).Get("https://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "PeerLearn page") {
		t.Fatalf("pinned GET /: %d %q", resp.StatusCode, body)
	}
	if h := resp.Header.Get("Strict-Transport-Security"); !strings.HasPrefix(h, "max-age=") {
		t.Fatalf("HSTS over TLS: %q", h)
	}
	if resp.TLS == nil || resp.TLS.NegotiatedProtocol == "h2" {
		t.Fatalf("TLS state %+v: want HTTP/1.1 over TLS (websockets need it)", resp.TLS)
	}

	// wss: the signalling protocol over the pinned connection.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "wss://"+addr+"/signal", &websocket.DialOptions{HTTPClient: pinnedClient(t, finger)})
	if err != nil {
		t.Fatalf("wss dial: %v", err)
	}
	defer conn.CloseNow()
	_, b, err := conn.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m, err := signal.Decode(b)
	if err != nil || m.Type != signal.MsgChallenge {
		t.Fatalf("first message %v %v", m, err)
	}
	var tid ident.Task
	for id := range s.Tasks() {
		tid = id
	}
	hello, _ := signal.Encode(&signal.Message{Type: signal.MsgHello, Hello: signal.SignHello(identity(t, 1), m.Challenge.Nonce, tid)})
	if err := conn.Write(ctx, websocket.MessageText, hello); err != nil {
		t.Fatal(err)
	}
	if _, b, err = conn.Read(ctx); err != nil {
		t.Fatal(err)
	}
	if m, err := signal.Decode(b); err != nil || m.Type != signal.MsgWelcome {
		t.Fatalf("after hello over wss: %v %v", m, err)
	}

	// Another pin, the system roots, plain HTTP: no page.
	_, _, otherFinger, err := SelfSignedTLS([]string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pinnedClient(t, otherFinger).Get("https://" + addr + "/"); err == nil || !errors.Is(err, errFingerprint) {
		t.Fatalf("another pin: %v, want %v", err, errFingerprint)
	}
	var unknown x509.UnknownAuthorityError
	if _, err := (&http.Client{Timeout: 5 * time.Second}).Get("https://" + addr + "/"); !errors.As(err, &unknown) {
		t.Fatalf("system roots: %v, want an unknown-authority error", err)
	}
	resp, err = (&http.Client{Timeout: 5 * time.Second}).Get("http://" + addr + "/")
	if err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 || strings.Contains(string(body), "PeerLearn page") {
			t.Fatalf("plain HTTP on the TLS port: %d %q", resp.StatusCode, body)
		}
	}
}

// Plain HTTP gets no HSTS (it would be ignored, and must not stick to a
// LAN name), but the other headers.
func TestSecurityHeaders(t *testing.T) {
	web := t.TempDir()
	if err := os.WriteFile(filepath.Join(web, "index.html"), []byte("<h1>PeerLearn</h1>"), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, func(c *Config) { c.WebDir = web })
	for _, path := range []string{"/", "/healthz", "/nope"} {
		_, hdr, _ := get(t, ts.httpURL()+path)
		csp := hdr.Get("Content-Security-Policy")
		for _, want := range []string{"frame-ancestors 'none'", "'wasm-unsafe-eval'", "connect-src 'self' ws: wss:", "object-src 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(csp, "'unsafe-eval'") || strings.Contains(csp, "'unsafe-inline'") {
			t.Errorf("%s: CSP %q allows eval or inline script", path, csp)
		}
		for k, want := range map[string]string{"X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer",
			"X-Content-Type-Options": "nosniff", "Strict-Transport-Security": ""} {
			if got := hdr.Get(k); got != want {
				t.Errorf("%s: %s %q, want %q", path, k, got, want)
			}
		}
	}
}

// The fingerprint parser takes openssl's form and bare hex, and refuses
// anything else; a pinned config checks the leaf only.
func TestFingerprint(t *testing.T) {
	c, err := SelfSignedCert([]string{"peerlearn.lan", "192.168.1.5", "::1"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Leaf.DNSNames; len(got) != 1 || got[0] != "peerlearn.lan" || len(c.Leaf.IPAddresses) != 2 {
		t.Fatalf("names %v ips %v", got, c.Leaf.IPAddresses)
	}
	if err := c.Leaf.VerifyHostname("192.168.1.5"); err != nil {
		t.Fatal(err)
	}
	f := Fingerprint(c.Certificate[0])
	a, err := ParseFingerprint(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseFingerprint(strings.ToLower(strings.ReplaceAll(f, ":", "")))
	if err != nil || a != b {
		t.Fatalf("bare hex: %v", err)
	}
	for _, bad := range []string{"", "AB:CD", f + ":00", strings.Replace(f, "", "Z", 1)} {
		if _, err := ParseFingerprint(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("ParseFingerprint(%q): %v", bad, err)
		}
	}
	spki, err := SPKIFingerprint(c.Certificate[0])
	if err != nil || len(spki) != 44 {
		t.Fatalf("SPKI fingerprint %q %v", spki, err)
	}
	if _, err := SPKIFingerprint([]byte("not a certificate")); err == nil {
		t.Fatal("SPKI of garbage")
	}
	pin, _ := PinnedTLSConfig(f)
	if err := pin.VerifyPeerCertificate([][]byte{c.Certificate[0]}, nil); err != nil {
		t.Fatal(err)
	}
	if err := pin.VerifyPeerCertificate([][]byte{append([]byte{}, c.Certificate[0][1:]...)}, nil); err == nil {
		t.Fatal("another certificate accepted")
	}
	if err := pin.VerifyPeerCertificate(nil, nil); err == nil {
		t.Fatal("no certificate accepted")
	}
	if _, err := SelfSignedCert(nil, time.Hour); !errors.Is(err, ErrConfig) {
		t.Fatal("no hosts accepted")
	}
	if err := (&Server{}).ServeTLS(nil, &tls.Config{}); !errors.Is(err, ErrConfig) {
		t.Fatal("TLS without a certificate accepted")
	}
}

// The ACME manager is wired for the domain only, caches in the given
// directory, answers TLS-ALPN-01 on the TLS port and HTTP-01 on the HTTP
// one (no internet here: the wiring is what can be checked).
func TestAutocertWiring(t *testing.T) {
	dir := t.TempDir()
	m, err := Autocert([]string{"learn.example.org"}, dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := m.HostPolicy(ctx, "learn.example.org"); err != nil {
		t.Fatal(err)
	}
	if err := m.HostPolicy(ctx, "evil.example.com"); err == nil {
		t.Fatal("host policy accepts another domain")
	}
	if err := m.Cache.Put(ctx, "probe", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "probe")); err != nil {
		t.Fatalf("cache not in %s: %v", dir, err)
	}
	tc := AutocertTLSConfig(m)
	if tc.GetCertificate == nil || tc.MinVersion != tls.VersionTLS12 {
		t.Fatal("no certificate source or protocol floor")
	}
	if _, err := tc.GetCertificate(&tls.ClientHelloInfo{ServerName: "evil.example.com"}); err == nil {
		t.Fatal("certificate for another domain")
	}
	if got := onlyHTTP1(tc.NextProtos); strings.Join(got, ",") != "http/1.1,acme-tls/1" {
		t.Fatalf("ALPN %v", got)
	}
	rec := &recorder{h: http.Header{}}
	req, _ := http.NewRequest("GET", "http://learn.example.org/page?x=1", nil)
	AutocertHTTPHandler(m).ServeHTTP(rec, req)
	if rec.code != http.StatusFound || rec.h.Get("Location") != "https://learn.example.org/page?x=1" {
		t.Fatalf("http redirect %d %q", rec.code, rec.h.Get("Location"))
	}
	if _, err := Autocert(nil, dir); err == nil {
		t.Fatal("no domain accepted")
	}
	if _, err := Autocert([]string{"a.org"}, ""); err == nil {
		t.Fatal("no cache accepted")
	}
}

type recorder struct {
	h    http.Header
	code int
}

func (r *recorder) Header() http.Header         { return r.h }
func (r *recorder) Write(b []byte) (int, error) { return len(b), nil }
func (r *recorder) WriteHeader(c int)           { r.code = c }
