package server

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/signal/server/servertest"
)

// Static files: dotfiles and everything under a dot directory are not
// served; a symlink leading out of the directory is refused (the old
// os.DirFS followed it), one inside it is served; the datasets linked at
// wasm/data are served from their own root.
func TestStaticRootAndDotfiles(t *testing.T) {
	web, wasm, outside, data := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		t.Helper()
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(web, "index.html"), "<h1>PeerLearn</h1>")
	write(filepath.Join(web, ".env"), "SECRET=1")
	write(filepath.Join(web, ".git", "config"), "[core]")
	write(filepath.Join(web, "sub", ".hidden"), "hidden")
	write(filepath.Join(web, "app.js"), "app")
	write(filepath.Join(outside, "secret.txt"), "outside secret")
	write(filepath.Join(data, "mnist", "labels"), "labels")
	link(filepath.Join(outside, "secret.txt"), filepath.Join(web, "leak.txt"))
	link(outside, filepath.Join(web, "leakdir"))
	link("app.js", filepath.Join(web, "alias.js"))
	link(data, filepath.Join(wasm, "data"))
	write(filepath.Join(wasm, "peer.wasm"), "\x00asm")
	ts := startServer(t, func(c *Config) { c.WebDir, c.WasmDir = web, wasm })
	for path, want := range map[string]int{
		"/": 200, "/app.js": 200, "/alias.js": 200, "/wasm/peer.wasm": 200, "/wasm/data/mnist/labels": 200,
		"/.env": 404, "/.git/config": 404, "/sub/.hidden": 404, "/%2eenv": 404,
		"/leak.txt": 404, "/leakdir/secret.txt": 404, "/wasm/data/../../secret.txt": 404,
	} {
		code, _, body := get(t, ts.httpURL()+path)
		if code == 200 && want != 200 || code != 200 && want == 200 || strings.Contains(body, "secret") || strings.Contains(body, "SECRET") {
			t.Errorf("%s: %d %q, want %d", path, code, body, want)
		}
	}
}

// A static directory that cannot be opened is a configuration error at
// New, not a server answering 404 to everything.
func TestStaticMissingDir(t *testing.T) {
	spec, _ := servertest.Task(t, "x")
	cfg := DefaultConfig()
	cfg.Tasks, cfg.WebDir = []task.Spec{spec}, filepath.Join(t.TempDir(), "missing")
	if _, err := New(cfg); !errors.Is(err, ErrConfig) {
		t.Fatalf("missing web dir: %v", err)
	}
}
