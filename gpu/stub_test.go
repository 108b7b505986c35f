//go:build !torch

package gpu

import (
	"errors"
	"testing"

	"github.com/peerlearn/peerlearn/engine/nn"
)

// Without the torch tag the package says so instead of pretending.
func TestNotBuilt(t *testing.T) {
	if Available() {
		t.Fatal("Available() is true in a build without -tags torch")
	}
	a, err := nn.NewArch("mlp")
	if err != nil {
		t.Fatal(err)
	}
	opt, err := nn.NewSGD(0.1, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(a, opt, Config{})
	if b != nil || !errors.Is(err, ErrNotBuilt) {
		t.Fatalf("New = %v, %v; want nil, ErrNotBuilt", b, err)
	}
	var nb *Backend
	if _, err := nb.TrainBatch(nil, nil); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("TrainBatch: %v", err)
	}
	nf, err := Factory(Config{})(a, opt)
	if nf != nil || !errors.Is(err, ErrNotBuilt) {
		t.Errorf("Factory: %v, %v; want a nil Backend and ErrNotBuilt", nf, err)
	}
}
