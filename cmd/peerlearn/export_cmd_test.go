package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/engine/export"
	"github.com/peerlearn/peerlearn/engine/nn"
)

// TestExportCommand: `peerlearn export` writes a safetensors file that
// reads back as the saved parameters, and refuses what it cannot export
// with an exit status and a message that names the problem.
func TestExportCommand(t *testing.T) {
	dir := t.TempDir()
	a, err := nn.NewArch("dechw-cnn")
	if err != nil {
		t.Fatal(err)
	}
	plnn := filepath.Join(dir, "m.plnn")
	m, b := savedModel(t, a, 5, plnn)
	// A .plnn does not list its layers: one of an architecture that is not
	// built in is refused.
	unknown, err := nn.AppendEncoded(nil, "my-net", m.ShapeChecksum(), m.Params())
	if err != nil {
		t.Fatal(err)
	}
	unknownFile := filepath.Join(dir, "unknown.plnn")
	corrupt := filepath.Join(dir, "corrupt.plnn")
	if err := os.WriteFile(unknownFile, unknown, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(corrupt, b[:len(b)-1], 0o644); err != nil {
		t.Fatal(err)
	}

	st := filepath.Join(dir, "m.safetensors")
	var out bytes.Buffer
	if rc := run(context.Background(), []string{"export", "-model", plnn, "-format", "safetensors", "-o", st}, &out, t.Logf); rc != 0 {
		t.Fatalf("exit %d", rc)
	}
	if !strings.HasPrefix(out.String(), "export format=safetensors arch=dechw-cnn params=21840 ") {
		t.Errorf("printed %q", out.String())
	}
	got, err := os.ReadFile(st)
	if err != nil {
		t.Fatal(err)
	}
	params, err := export.ReadSafetensors(got, a)
	if err != nil || !slices.Equal(params, m.Params()) {
		t.Fatalf("read back: %v (equal %v)", err, slices.Equal(params, m.Params()))
	}

	for _, c := range []struct {
		args []string
		rc   int
		msg  string
	}{
		{[]string{"-model", plnn, "-format", "npz", "-o", st}, 2, `-format "npz"`},
		{[]string{"-model", plnn, "-format", "onnx"}, 2, "-model and -o are required"},
		{[]string{"-model", plnn, "-format", "onnx", "-o", plnn}, 2, "would overwrite -model"},
		{[]string{"-model", plnn, "-format", "onnx", "-o", st, "-input", "28x28"}, 2, "want HxWxC"},
		{[]string{"-model", plnn, "-format", "onnx", "-o", st, "-classes", "26"}, 1, "give the -input and -classes it was built for"},
		{[]string{"-model", unknownFile, "-format", "onnx", "-o", st}, 1, `unknown architecture "my-net"`},
		{[]string{"-model", corrupt, "-format", "onnx", "-o", st}, 1, "malformed model encoding"},
		{[]string{"-model", filepath.Join(dir, "none.plnn"), "-format", "onnx", "-o", st}, 1, "no such file"},
	} {
		var log strings.Builder
		logf := func(format string, args ...any) {
			log.WriteString(strings.TrimSpace(fmt.Sprintf(format, args...)) + "\n")
		}
		if rc := run(context.Background(), append([]string{"export"}, c.args...), &out, logf); rc != c.rc || !strings.Contains(log.String(), c.msg) {
			t.Errorf("%v: exit %d, log %q; want exit %d and %q", c.args, rc, log.String(), c.rc, c.msg)
		}
	}
}

// savedModel draws a model of a (He init from seed), writes it to path in
// the engine's encoding and returns it with its bytes.
func savedModel(t *testing.T, a nn.Arch, seed uint64, path string) (*nn.Model, []byte) {
	t.Helper()
	m, err := nn.NewModel(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Init(rand.New(rand.NewPCG(seed, seed)), nn.HeNormal, nil); err != nil {
		t.Fatal(err)
	}
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return m, b
}
