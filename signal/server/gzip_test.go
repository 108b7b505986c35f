package server

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rawGet fetches url with the given Accept-Encoding (and Range, if not
// empty) and returns the response with its body as sent, undecoded.
func rawGet(t *testing.T, url, acceptEncoding, rng string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	c := http.Client{Transport: &http.Transport{DisableCompression: true}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Compressible static files go gzipped to clients that accept gzip, with
// the file's type; Range requests, clients without gzip, small files,
// already-compressed formats and incompressible bytes are served as they
// are; a changed file is compressed again; a zero budget turns it off.
func TestStaticGzip(t *testing.T) {
	dir := t.TempDir()
	idx := bytes.Repeat([]byte{0, 0, 0, 7, 9, 200, 0, 0}, 64<<10) // 512 KiB, IDX-like
	noise := make([]byte, 64<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	files := map[string][]byte{
		"peer.wasm":                    append([]byte("\x00asm\x01\x00\x00\x00"), idx...),
		"data/mnist/train-labels-idx1": idx,
		"small.js":                     []byte("console.log(1)"),
		"photo.png":                    idx,
		"noise.bin":                    noise,
	}
	for name, b := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ts := startServer(t, func(c *Config) { c.WasmDir = dir })
	url := ts.httpURL() + "/wasm/"

	resp, body := rawGet(t, url+"peer.wasm", "gzip, deflate, br", "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" ||
		resp.Header.Get("Content-Type") != "application/wasm" || resp.Header.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("peer.wasm: %d %v", resp.StatusCode, resp.Header)
	}
	if got := gunzip(t, body); !bytes.Equal(got, files["peer.wasm"]) {
		t.Fatal("peer.wasm: gunzipped body differs from the file")
	}
	gzipped, etag := body, resp.Header.Get("ETag")
	if !strings.HasSuffix(etag, `-gz"`) {
		t.Errorf("gzipped peer.wasm has ETag %q, want one of its own", etag)
	}
	// A range with gzip accepted is of the gzipped bytes (HTTP's rule for
	// a Content-Encoding), so a resumed download stays consistent.
	resp, body = rawGet(t, url+"peer.wasm", "gzip", "bytes=0-99")
	if resp.StatusCode != http.StatusPartialContent || resp.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(body, gzipped[:100]) {
		t.Errorf("gzip range: %d %v, %d bytes", resp.StatusCode, resp.Header, len(body))
	}
	if len(body) > len(files["peer.wasm"])/10 {
		t.Errorf("peer.wasm: %d bytes gzipped from %d", len(body), len(files["peer.wasm"]))
	}
	resp, body = rawGet(t, url+"data/mnist/train-labels-idx1", "gzip", "")
	if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Content-Type") != "application/octet-stream" ||
		!bytes.Equal(gunzip(t, body), idx) {
		t.Fatalf("IDX file: %v", resp.Header)
	}

	for _, c := range []struct{ name, accept, rng string }{
		{"peer.wasm", "", ""},                   // no gzip offered
		{"peer.wasm", "gzip;q=0, *", ""},        // gzip refused
		{"peer.wasm", "identity", ""},           // only identity
		{"peer.wasm", "", "bytes=0-99"},         // a range of the plain file
		{"small.js", "gzip", ""},                // too small
		{"photo.png", "gzip", ""},               // compressed format
		{"noise.bin", "gzip", ""},               // does not compress
		{"data/mnist/", "gzip", ""},             // a directory: no listing
		{"missing.wasm", "gzip", ""},            // not there
		{"../gzip_test.go", "gzip", ""},         // outside the directory
		{"data/../../gzip_test.go", "gzip", ""}, // also outside
	} {
		resp, body := rawGet(t, url+c.name, c.accept, c.rng)
		if ce := resp.Header.Get("Content-Encoding"); ce != "" {
			t.Errorf("%s (Accept-Encoding %q, Range %q): Content-Encoding %q", c.name, c.accept, c.rng, ce)
		}
		want, ok := files[c.name]
		switch {
		case !ok && resp.StatusCode != http.StatusNotFound:
			t.Errorf("%s: %d, want 404", c.name, resp.StatusCode)
		case ok && c.rng != "" && (resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, want[:100])):
			t.Errorf("%s range: %d, %d bytes", c.name, resp.StatusCode, len(body))
		case ok && c.rng == "" && (resp.StatusCode != 200 || !bytes.Equal(body, want)):
			t.Errorf("%s: %d, %d bytes, want the file's %d", c.name, resp.StatusCode, len(body), len(want))
		}
	}

	// The file changes: the next gzipped response is of the new content.
	changed := bytes.Repeat([]byte("changed "), 4096)
	p := filepath.Join(dir, "peer.wasm")
	if err := os.WriteFile(p, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if resp, body := rawGet(t, url+"peer.wasm", "gzip", ""); resp.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(gunzip(t, body), changed) {
		t.Fatal("changed peer.wasm: stale or not gzipped")
	}

	off := startServer(t, func(c *Config) { c.WasmDir, c.StaticGzipBytes = dir, 0 })
	if resp, body := rawGet(t, off.httpURL()+"/wasm/peer.wasm", "gzip", ""); resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, changed) {
		t.Fatalf("gzip off: %v", resp.Header)
	}
}

// The budget bounds the compressed copies kept: a file that does not fit
// is served uncompressed.
func TestStaticGzipBudget(t *testing.T) {
	dir := t.TempDir()
	a := bytes.Repeat([]byte("abcdefgh"), 1<<17) // 1 MiB each, ~5 KiB gzipped
	b := bytes.Repeat([]byte("ijklmnop"), 1<<17)
	for name, data := range map[string][]byte{"a.wasm": a, "b.wasm": b} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	resp, body := rawGet(t, startServer(t, func(c *Config) { c.WasmDir = dir }).httpURL()+"/wasm/a.wasm", "gzip", "")
	size := len(body)
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatal("a.wasm not gzipped")
	}
	// Room for one copy of that size, and then some, but not two.
	ts := startServer(t, func(c *Config) { c.WasmDir, c.StaticGzipBytes = dir, int64(size)*3/2 })
	if resp, _ := rawGet(t, ts.httpURL()+"/wasm/a.wasm", "gzip", ""); resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatal("the first file should fit the budget")
	}
	if resp, body := rawGet(t, ts.httpURL()+"/wasm/b.wasm", "gzip", ""); resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, b) {
		t.Fatalf("the second file should be served as is: %v", resp.Header)
	}
}

func TestAcceptsGzip(t *testing.T) {
	for h, want := range map[string]bool{
		"":                    false,
		"gzip":                true,
		"GZIP":                true,
		"deflate, gzip;q=0.5": true,
		"gzip;q=0":            false,
		"gzip;q=0, *":         false,
		"*":                   true,
		"*;q=0":               false,
		"br, identity":        false,
		"x-gzip":              true,
		"gzip;q=nonsense":     false,
		"gzip ; q=0.001":      true,
		"gzip;foo=1;q=0":      false,
		"gzip;q=0.5;x=1":      true,
		",,, gzip":            true,
	} {
		if got := acceptsGzip(h); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", h, got, want)
		}
	}
}

// The handler itself cleans the path: a name that climbs out of the
// directory is not served, even if it reaches the handler unclean.
func TestStaticGzipPathClimb(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "served")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := bytes.Repeat([]byte("secret "), 1024)
	if err := os.WriteFile(filepath.Join(root, "secret.txt"), secret, 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := staticHandler(dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/../secret.txt", "/a/../../secret.txt", "/..%2fsecret.txt"} {
		req := httptest.NewRequest("GET", "http://x/", nil)
		req.URL.Path = p
		req.Header.Set("Accept-Encoding", "gzip")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if bytes.Contains(rec.Body.Bytes(), []byte("secret")) || rec.Header().Get("Content-Encoding") != "" {
			t.Errorf("%s: %d, served %d bytes, %v", p, rec.Code, rec.Body.Len(), rec.Header())
		}
	}
}

// A precompressed sibling (peer.wasm.gz, peer.wasm.zst, as `make wasm`
// writes them) is served as peer.wasm's gzip or zstd encoding, byte for
// byte, with its own ETag and ranges of it, zstd only to clients that name
// it; a client without either gets the file; a sibling older than the
// file is ignored (the file is compressed here instead).
func TestStaticGzipPrecompressed(t *testing.T) {
	dir := t.TempDir()
	raw := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte{1, 2, 3, 0, 0, 9}, 20000)...)
	var zb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&zb, gzip.BestSpeed) // unlike what the server would make
	zw.Write(raw)
	zw.Close()
	pre := zb.Bytes()
	if err := os.WriteFile(filepath.Join(dir, "peer.wasm"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "peer.wasm.gz"), pre, 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, func(c *Config) { c.WasmDir = dir })
	url := ts.httpURL() + "/wasm/peer.wasm"

	resp, body := rawGet(t, url, "gzip", "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Content-Type") != "application/wasm" ||
		!bytes.Equal(body, pre) || !strings.HasSuffix(resp.Header.Get("ETag"), `-gzs"`) {
		t.Fatalf("with a precompressed copy: %d %v, %d bytes (the copy has %d)", resp.StatusCode, resp.Header, len(body), len(pre))
	}
	resp, body = rawGet(t, url, "gzip", "bytes=10-19")
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, pre[10:20]) {
		t.Errorf("range of the precompressed copy: %d, %q", resp.StatusCode, body)
	}
	// A zstd copy goes to clients that name zstd, the gzip one to others.
	zst := append([]byte("\x28\xb5\x2f\xfd"), bytes.Repeat([]byte("z"), 2000)...) // served as it is, never decoded here
	if err := os.WriteFile(filepath.Join(dir, "peer.wasm.zst"), zst, 0o644); err != nil {
		t.Fatal(err)
	}
	resp, body = rawGet(t, url, "gzip, deflate, br, zstd", "")
	if resp.Header.Get("Content-Encoding") != "zstd" || !bytes.Equal(body, zst) || !strings.HasSuffix(resp.Header.Get("ETag"), `-zst"`) ||
		resp.Header.Get("Content-Type") != "application/wasm" {
		t.Errorf("with zstd accepted: %v, %d bytes (the zstd copy has %d)", resp.Header, len(body), len(zst))
	}
	for _, ae := range []string{"gzip", "gzip, zstd;q=0", "gzip, *"} {
		if resp, body = rawGet(t, url, ae, ""); resp.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(body, pre) {
			t.Errorf("Accept-Encoding %q: %v, %d bytes: want the gzip copy", ae, resp.Header, len(body))
		}
	}
	if resp, body = rawGet(t, url, "zstd", ""); resp.Header.Get("Content-Encoding") != "zstd" || !bytes.Equal(body, zst) {
		t.Errorf("zstd only: %v, %d bytes: want the zstd copy", resp.Header, len(body))
	}
	resp, body = rawGet(t, url, "identity", "")
	if resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, raw) {
		t.Errorf("without gzip: %v, %d bytes", resp.Header, len(body))
	}
	// The file rebuilt after its copies: they are stale.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(dir, "peer.wasm"), later, later); err != nil {
		t.Fatal(err)
	}
	resp, body = rawGet(t, url, "gzip, zstd", "")
	if resp.Header.Get("Content-Encoding") != "gzip" || bytes.Equal(body, pre) || !bytes.Equal(gunzip(t, body), raw) ||
		!strings.HasSuffix(resp.Header.Get("ETag"), `-gz"`) {
		t.Errorf("stale copy: %v, %d bytes (the stale copy has %d)", resp.Header, len(body), len(pre))
	}
}
