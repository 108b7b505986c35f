package server

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestStaticPrecompressed: a precompressed file (a tab's light shard,
// written by wasm/lightdata) is served as it is, never gzipped again,
// whatever the client accepts: its exact Content-Length, a strong ETag
// that changes with the file, ranges of its bytes, and 304 for a
// matching If-None-Match.
func TestStaticPrecompressed(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(bytes.Repeat([]byte{0, 0, 3, 9, 255, 0}, 20000))
	zw.Close()
	file := buf.Bytes()
	p := filepath.Join(dir, "light", "mnist", "x-8", "shard-1-images-idx3-ubyte.gz")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, file, 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, func(c *Config) { c.DataDir = dir })
	url := ts.httpURL() + "/wasm/data/light/mnist/x-8/shard-1-images-idx3-ubyte.gz"

	resp, body := rawGet(t, url, "gzip", "")
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, file) ||
		resp.Header.Get("Content-Length") != strconv.Itoa(len(file)) || len(etag) < 4 || etag[0] != '"' {
		t.Fatalf("%d %v, %d bytes of %d", resp.StatusCode, resp.Header, len(body), len(file))
	}
	resp, body = rawGet(t, url, "", "bytes=10-109")
	if resp.StatusCode != http.StatusPartialContent || resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, file[10:110]) ||
		resp.Header.Get("ETag") != etag {
		t.Errorf("range: %d %v, %d bytes", resp.StatusCode, resp.Header, len(body))
	}
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("If-None-Match", etag)
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match its ETag: %d, want 304", r2.StatusCode)
	}
	// A rewritten file has another ETag.
	if err := os.WriteFile(p, append(file, file...), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, body = rawGet(t, url, "gzip", "")
	if resp.Header.Get("ETag") == etag || len(body) != 2*len(file) {
		t.Errorf("rewritten: ETag %q (was %q), %d bytes", resp.Header.Get("ETag"), etag, len(body))
	}
}
