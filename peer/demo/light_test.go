package demo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/engine/data"
)

// TestLightShardsForTheDemosTask: a demo that serves the page writes its
// own partition's light files where tabs fetch the data (the build's
// data/), once, and says why when there is nowhere to write them.
func TestLightShardsForTheDemosTask(t *testing.T) {
	src := os.Getenv("PEERLEARN_DATA")
	if src == "" {
		t.Skip("PEERLEARN_DATA unset (run `make data`)")
	}
	if _, err := os.Stat(filepath.Join(src, "mnist", "train-images-idx3-ubyte")); err != nil {
		t.Skipf("no MNIST under %s", src)
	}
	var lines []string
	logf := func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }
	cfg := Config{DataDir: src, WasmDir: t.TempDir()}
	spec := Spec(3, 0.9)

	lightShards(cfg, spec, logf) // no data/ under the build: nothing written
	if len(lines) != 1 || !strings.Contains(lines[0], "no data under") {
		t.Fatalf("without data/: log %q", lines)
	}
	out := filepath.Join(cfg.WasmDir, "data")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	lines = nil
	lightShards(cfg, spec, logf)
	p := spec.Partition
	dir, err := data.LightDir(spec.Dataset, p.Spec, p.Parts, p.Seed)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, dir, "manifest.json"))
	if err != nil {
		t.Fatalf("no manifest (log %q): %v", lines, err)
	}
	var m data.LightManifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Parts != 3 || len(m.Samples) != 3 || m.Dataset != "mnist" {
		t.Fatalf("manifest %+v, want mnist in 3 parts", m)
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "9 files written") {
		t.Fatalf("log %q, want the 9 files written", lines)
	}
	lines = nil
	lightShards(cfg, spec, logf) // there already: not rewritten, nothing said
	if len(lines) != 0 {
		t.Fatalf("a second demo: log %q, want nothing", lines)
	}
}
