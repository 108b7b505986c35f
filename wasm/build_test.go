//go:build !js

package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The browser peer must stay free of native-only packages: they either do
// not build for GOOS=js or bloat the download for nothing.
var forbidden = []string{
	"github.com/peerlearn/peerlearn/gpu",           // cgo, libtorch
	"github.com/peerlearn/peerlearn/signal/server", // the signalling server
	"github.com/prometheus/",                       // its metrics
	"net/http/pprof",
	"runtime/cgo",
	"github.com/tetratelabs/wazero",
	"gonum.org/v1/plot",
}

// The peer code the tab must run: the same as `peerlearn peer`.
var required = []string{
	"github.com/peerlearn/peerlearn/peer/netpeer",
	"github.com/peerlearn/peerlearn/peer/rtc",
	"github.com/peerlearn/peerlearn/peer/learn",
	"github.com/pion/webrtc/v4",
}

func goEnvJS(args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	return cmd
}

// TestWasmDeps lists the wasm entry's dependencies for GOOS=js.
func TestWasmDeps(t *testing.T) {
	out, err := goEnvJS("list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	has := map[string]bool{}
	for _, d := range deps {
		has[d] = true
		for _, f := range forbidden {
			if d == f || strings.HasPrefix(d, f) && (strings.HasSuffix(f, "/") || strings.HasPrefix(d, f+"/")) {
				t.Errorf("the wasm peer depends on %s (forbidden: %s)", d, f)
			}
		}
	}
	for _, r := range required {
		if !has[r] {
			t.Errorf("the wasm peer does not depend on %s", r)
		}
	}
	t.Logf("%d packages", len(deps))
}

// TestWasmBuild builds the browser peer as `make wasm` does (stripped)
// and reports its size.
func TestWasmBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the wasm peer (-short)")
	}
	dst := filepath.Join(t.TempDir(), "peer.wasm")
	if out, err := goEnvJS("build", "-ldflags=-s -w", "-o", dst, ".").CombinedOutput(); err != nil {
		t.Fatalf("GOOS=js GOARCH=wasm go build: %v\n%s", err, out)
	}
	b, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	w.Write(b)
	w.Close()
	t.Logf("peer.wasm: %.1f MB (%.1f MB gzipped)", float64(len(b))/1e6, float64(gz.Len())/1e6)
	if !bytes.HasPrefix(b, []byte("\x00asm")) {
		t.Fatalf("peer.wasm is not a WebAssembly module")
	}
	const budget = 20 << 20
	if len(b) > budget {
		t.Errorf("peer.wasm is %d bytes, over the %d-byte budget", len(b), budget)
	}
}
