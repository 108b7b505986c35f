package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/signal"
)

func get(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// Websockets from a foreign page are refused (403) and counted; the same
// origin, localhost pages and native clients (no Origin) are accepted.
func TestOriginCheck(t *testing.T) {
	ts := startServer(t, nil)
	for _, origin := range []string{"http://evil.example", "https://localhost.evil.example", "null", "file://x"} {
		_, resp, err := dialRaw(t, ts, http.Header{"Origin": {origin}})
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("origin %q accepted (%v)", origin, err)
		}
	}
	for _, origin := range []string{"", "http://" + ts.addr, "http://localhost:3000", "http://127.0.0.1:8080", "http://[::1]:1"} {
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		r, _, err := dialRaw(t, ts, h)
		if err != nil {
			t.Errorf("origin %q refused: %v", origin, err)
			continue
		}
		r.mustRead(signal.MsgChallenge)
	}
	if n := ts.Stats().Refusals[signal.CodeOrigin]; n != 4 {
		t.Fatalf("%d origin refusals, want 4", n)
	}
}

func TestOriginAllowed(t *testing.T) {
	req := func(origin string) *http.Request {
		r := httptest.NewRequest("GET", "http://learn.example.org:8080/signal", nil)
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		return r
	}
	patterns := []string{"*.peers.example", "https://app.example:443"}
	cases := map[string]bool{
		"":                               true,
		"http://learn.example.org:8080":  true, // same origin
		"https://LEARN.example.org:8080": true,
		"http://learn.example.org":       false, // another port
		"http://a.peers.example":         true,
		"http://a.b.peers.example":       true, // path.Match's * spans dots
		"https://app.example:443":        true,
		"http://app.example:443":         false, // scheme pattern
		"http://localhost:1234":          false, // not in these patterns
		"ftp://a.peers.example":          false,
		"::::":                           false,
	}
	for origin, want := range cases {
		if got := originAllowed(req(origin), patterns); got != want {
			t.Errorf("%q: got %v, want %v", origin, got, want)
		}
	}
	if originAllowed(req("http://localhost:1"), nil) {
		t.Error("nil patterns must allow the same origin only")
	}
}

func TestHealthzAndMetrics(t *testing.T) {
	ts := startServer(t, nil)
	code, _, body := get(t, ts.httpURL()+"/healthz")
	if code != 200 || body != "ok\n" {
		t.Fatalf("healthz: %d %q", code, body)
	}
	dial(t, ts, 1)
	dial(t, ts, 2)
	if _, _, err := dialRaw(t, ts, http.Header{"Origin": {"http://evil.example"}}); err == nil {
		t.Fatal("foreign origin accepted")
	}
	code, hdr, body := get(t, ts.httpURL()+"/metrics")
	if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/plain") {
		t.Fatalf("metrics: %d %s", code, hdr.Get("Content-Type"))
	}
	for _, want := range []string{
		`peerlearn_signal_peers{name="test",task="` + ts.tid.String() + `"} 2`,
		`peerlearn_signal_connections 2`,
		`peerlearn_signal_registrations_total 2`,
		`peerlearn_signal_relayed_total{kind="offer"} 0`,
		`peerlearn_signal_refusals_total{reason="origin"} 1`,
		`peerlearn_signal_refusals_total{reason="rate-limited"} 0`,
		`peerlearn_signal_established_peers{name="test",task="` + ts.tid.String() + `"} 1`, // the first peer; the second claimed nothing
		`peerlearn_signal_connected_reports_total{outcome="unconfirmed"} 0`,
		`go_goroutines `,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if code, _, _ := get(t, ts.httpURL()+"/"); code != http.StatusNotFound {
		t.Errorf("no web dir: / gave %d", code)
	}
}

// The web page and the wasm build are served (no directory listings).
func TestStatic(t *testing.T) {
	web, wasm := t.TempDir(), t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(web, "index.html"), []byte("<h1>PeerLearn</h1>"), 0o644))
	must(os.Mkdir(filepath.Join(web, "private"), 0o755))
	must(os.WriteFile(filepath.Join(web, "private", "x.txt"), []byte("x"), 0o644))
	must(os.WriteFile(filepath.Join(wasm, "peer.wasm"), []byte("\x00asm\x01\x00\x00\x00"), 0o644))
	ts := startServer(t, func(c *Config) { c.WebDir, c.WasmDir = web, wasm })
	if code, _, body := get(t, ts.httpURL()+"/"); code != 200 || !strings.Contains(body, "PeerLearn") {
		t.Fatalf("/: %d %q", code, body)
	}
	code, hdr, body := get(t, ts.httpURL()+"/wasm/peer.wasm")
	if code != 200 || hdr.Get("Content-Type") != "application/wasm" || body[:4] != "\x00asm" {
		t.Fatalf("/wasm/peer.wasm: %d %s", code, hdr.Get("Content-Type"))
	}
	if code, _, _ := get(t, ts.httpURL()+"/private/"); code != http.StatusNotFound {
		t.Fatalf("directory listing: %d", code)
	}
	if code, _, _ := get(t, ts.httpURL()+"/private/x.txt"); code != 200 {
		t.Fatalf("file in a directory: %d", code)
	}
	if code, _, _ := get(t, ts.httpURL()+"/../../etc/passwd"); code == 200 {
		t.Fatal("path escape")
	}
}
