package main

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/engine/data"
)

// TestTaskManifest: `task manifest` writes a manifest that loads the
// folder it describes, and refuses a folder that does not fit.
func TestTaskManifest(t *testing.T) {
	dir := t.TempDir()
	write := func(p string, b []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	img := func(v uint8) []byte {
		m := image.NewGray(image.Rect(0, 0, 12, 10))
		for i := range m.Pix {
			m.Pix[i] = v
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, m); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	write("train/bag/1.png", img(10))
	write("train/shoe/2.png", img(200))
	write("test/bag/3.png", img(20))
	write("test/shoe/4.png", img(190))
	rc, out, diag := runTask("task", "manifest", "-format", "images", "-input", "4x4x1", "-normalize", "channel", dir)
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, diag)
	}
	if !regexp.MustCompile(`^manifest format=images input=4x4x1 classes=2 train=2 test=2 sha256=[0-9a-f]{64} out=`).MatchString(out) {
		t.Fatalf("printed %q", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := data.ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	train, _, err := data.LoadManifest(os.DirFS(dir), m)
	if err != nil {
		t.Fatal(err)
	}
	// Normalised on train: mean of 10 and 200 (/255), so bag < 0 < shoe.
	if m.Normalize == nil || train.X[0] >= 0 || train.X[16] <= 0 {
		t.Fatalf("normalize %+v, values %v %v", m.Normalize, train.X[0], train.X[16])
	}
	// A task on it: the spec records the manifest's sha256.
	sum := regexp.MustCompile(`sha256=([0-9a-f]{64})`).FindStringSubmatch(out)[1]
	rc, out, diag = runTask("task", "new", "-no-qr", "-name", "bags", "-data", dir, "-input", "4x4x1", "-classes", "bag,shoe", "-layers", "flatten,dense:units=2")
	if rc != 0 || !strings.Contains(out, `"manifest_sha256": "`+sum+`"`) || !strings.Contains(out, `"dataset": ""`) {
		t.Fatalf("task new -data: exit %d %s\n%s", rc, diag, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-data", dir, "-dataset", "mnist"}, "-dataset \"mnist\": leave it out"},
		{[]string{"-data", t.TempDir()}, "-data: open"},
		{[]string{"-data-url", "https://x/m.json"}, "-data-url: give -data too"},
	} {
		args := append([]string{"task", "new", "-no-qr", "-name", "bags", "-input", "4x4x1", "-classes", "bag,shoe", "-layers", "flatten,dense:units=2"}, c.args...)
		if rc, _, diag := runTask(args...); rc == 0 || !strings.Contains(diag, c.want) {
			t.Errorf("%v: exit %d %q, want %q", c.args, rc, diag, c.want)
		}
	}
	write("test/hat/5.png", img(1))
	rc, _, diag = runTask("task", "manifest", "-format", "images", "-input", "4x4x1", dir)
	if rc == 0 || !strings.Contains(diag, "test/hat: unknown class folder") {
		t.Fatalf("unknown class folder: exit %d %q", rc, diag)
	}
}
