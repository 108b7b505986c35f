package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/engine/export"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/protocol/task/taskarch"
)

// TestTaskExport: a declared model's .plnn exports through its spec; a
// model of another spec is refused by its layout checksum.
func TestTaskExport(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	if rc, _, diag := runTask("task", "new", "-no-qr", "-name", "pooled", "-o", spec, "-input", "28x28x1", "-classes", "0,1,2,3,4,5,6,7,8,9",
		"-layers", "conv2d:filters=4:kernel=3:pad=1,relu,avgpool2d:kernel=2,dropout:rate=0.3,conv2d:filters=6:kernel=3,globalavgpool,dense:units=10"); rc != 0 {
		t.Fatalf("task new: %s", diag)
	}
	b, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	s, err := task.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	a, err := taskarch.Arch(s)
	if err != nil {
		t.Fatal(err)
	}
	plnn := filepath.Join(dir, "m.plnn")
	m, _ := savedModel(t, a, 4, plnn)
	st := filepath.Join(dir, "m.safetensors")
	rc, out, diag := runTask("task", "export", "-spec", spec, "-model", plnn, "-format", "safetensors", "-o", st)
	if rc != 0 || !strings.HasPrefix(out, "export format=safetensors arch=pooled ") {
		t.Fatalf("exit %d %q %s", rc, out, diag)
	}
	sb, err := os.ReadFile(st)
	if err != nil {
		t.Fatal(err)
	}
	got, err := export.ReadSafetensors(sb, a)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, m.Params()) {
		t.Fatal("exported parameters differ")
	}
	if rc, _, diag := runTask("task", "export", "-spec", spec, "-model", plnn, "-format", "onnx", "-o", filepath.Join(dir, "m.onnx")); rc != 0 {
		t.Fatalf("onnx: %s", diag)
	}
	// Another spec's model: refused, naming both.
	other := filepath.Join(dir, "other.json")
	if rc, _, diag := runTask("task", "new", "-no-qr", "-name", "other", "-o", other); rc != 0 {
		t.Fatal(diag)
	}
	rc, _, diag = runTask("task", "export", "-spec", other, "-model", plnn, "-format", "onnx", "-o", filepath.Join(dir, "x.onnx"))
	if rc == 0 || !strings.Contains(diag, "the spec's model is mlp") {
		t.Fatalf("another spec: exit %d %q", rc, diag)
	}
	if rc, _, diag := runTask("task", "export", "-spec", spec, "-model", plnn, "-format", "pt", "-o", "x"); rc != 2 || !strings.Contains(diag, "-format") {
		t.Fatalf("bad format: exit %d %q", rc, diag)
	}
}
