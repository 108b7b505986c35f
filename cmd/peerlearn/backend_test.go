package main

import (
	"errors"
	"testing"

	"github.com/peerlearn/peerlearn/gpu"
)

// -backend and -device: go needs no device; an unknown engine is a usage
// error; torch needs a companion build and an existing device.
func TestBackendFlag(t *testing.T) {
	if f, err := backendFlag("go", "auto", 1); err != nil || f != nil {
		t.Fatalf("go: %v, factory %v", err, f != nil)
	}
	for _, c := range [][2]string{{"go", "cuda"}, {"cuda", "auto"}, {"", "auto"}} {
		if _, err := backendFlag(c[0], c[1], 1); !errors.Is(err, errUsage) {
			t.Errorf("-backend %q -device %q: %v, want a usage error", c[0], c[1], err)
		}
	}
	f, err := backendFlag("torch", "cpu", 1)
	switch {
	case !gpu.Available() && !errors.Is(err, gpu.ErrNotBuilt):
		t.Errorf("torch without -tags torch: %v, want gpu.ErrNotBuilt", err)
	case gpu.Available() && (err != nil || f == nil):
		t.Errorf("torch on the CPU: %v", err)
	}
	if gpu.Available() {
		if _, err := backendFlag("torch", "cuda:99", 1); !errors.Is(err, gpu.ErrDevice) {
			t.Errorf("torch on cuda:99: %v, want gpu.ErrDevice", err)
		}
	}
}
