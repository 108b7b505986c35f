package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/sim/scenario"
)

// TestSimTrainDatasetFlag checks that -dataset reaches the scenario: over
// a data folder holding only MNIST's directory, -dataset fashion-mnist
// must fail looking for Fashion-MNIST (the scenario's own test,
// sim/scenario/dataset_test.go, checks which set each scenario loads),
// and names the engine does not have, or a -dataset for a scenario that
// learns none, are refused.
func TestSimTrainDatasetFlag(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "mnist"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) error {
		return runSimTrain(context.Background(), append([]string{"-quick", "-quiet", "-data", dir, "-out", t.TempDir()}, args...), io.Discard, t.Logf)
	}
	err := run("-scenario", "fedlay-mnist", "-dataset", "fashion-mnist")
	if !errors.Is(err, scenario.ErrNoData) || !strings.Contains(err.Error(), "fashion-mnist") {
		t.Errorf("-dataset fashion-mnist without its files: %v, want ErrNoData naming fashion-mnist", err)
	}
	if err := run("-scenario", "fedlay-mnist", "-dataset", "cifar10"); !errors.Is(err, scenario.ErrDataset) {
		t.Errorf("-dataset cifar10: %v, want ErrDataset", err)
	}
	if err := run("-scenario", "vsteady", "-dataset", "mnist"); !errors.Is(err, scenario.ErrDataset) {
		t.Errorf("vsteady -dataset mnist: %v, want ErrDataset", err)
	}
}
