package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/engine/nn"
)

// The saver writes the model whole, once per round, under the task's
// name and the peer's ID, in the encoding `peerlearn export` reads; a
// model before describe or without a new round writes nothing.
func TestModelSaver(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "models")
	s, err := newModelSaver(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, err := nn.NewArch("mlp")
	if err != nil {
		t.Fatal(err)
	}
	m, err := nn.NewModel(a)
	if err != nil {
		t.Fatal(err)
	}
	params := m.Params()
	for i := range params {
		params[i] = float32(i%7) / 10
	}
	if path, err := s.save(params, 1); err != nil || path != "" {
		t.Fatalf("before describe: %q, %v", path, err)
	}
	s.describe(a, "demo-mnist", "0123456789abcdef")
	path, err := s.save(params, 1)
	if err != nil || filepath.Base(path) != "demo-mnist-01234567.plnn" {
		t.Fatalf("save: %q, %v", path, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h, got, err := nn.Decode(b)
	if err != nil || h.Arch != a.Name || !slices.Equal(got, params) {
		t.Fatalf("read back: %+v, %v, equal %v", h, err, slices.Equal(got, params))
	}
	if again, _ := s.save(params, 1); again != "" {
		t.Errorf("round 1 written twice: %q", again)
	}
	params[0] = 42
	if path, err = s.save(params, 2); err != nil || path == "" {
		t.Fatalf("round 2: %q, %v", path, err)
	}
	if b, _ = os.ReadFile(path); len(b) == 0 {
		t.Fatal("round 2 not on disk")
	}
	if _, got, _ = nn.Decode(b); got[0] != 42 {
		t.Errorf("round 2's file holds %v", got[0])
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.plnn.*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestSaveEveryFlag(t *testing.T) {
	for _, tc := range []struct {
		dir   string
		every time.Duration
		ok    bool
	}{
		{"", defaultSaveEvery, true},
		{"out", 10 * time.Second, true},
		{"", 10 * time.Second, false},
		{"out", 0, false},
		{"out", -time.Second, false},
	} {
		err := saveEveryFlag(tc.dir, tc.every)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, errUsage)) {
			t.Errorf("-save %q -save-every %v: %v", tc.dir, tc.every, err)
		}
	}
}
