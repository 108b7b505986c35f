package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/engine/data"
)

// The compression scenario's cells on the real D-PSGD cores (methodsim)
// and FedLay's MEP (dflsim): int8 deltas put about a quarter of
// float32's bytes on the wire, 4-bit ones under a fifth, the receivers'
// decoded copies still train, and the same seed gives the same run.
func TestCompressionCells(t *testing.T) {
	dir := os.Getenv("PEERLEARN_DATA")
	if dir == "" {
		t.Skip("PEERLEARN_DATA is not set: run `make data` (make test does)")
	}
	if _, err := os.Stat(filepath.Join(dir, "mnist", "train-images-idx3-ubyte")); err != nil {
		t.Skipf("no MNIST under PEERLEARN_DATA=%s: %v", dir, err)
	}
	train, test, err := data.Load(os.DirFS(dir), "mnist")
	if err != nil {
		t.Fatal(err)
	}
	run := func(codec string) compressionCell { return compressionCellOf(t, "dpsgd", codec, train, test) }
	f32, q := run("f32"), run("delta-int8")
	ratio := last(f32.bytes) / last(q.bytes)
	if ratio < 3.5 || ratio > 4.1 {
		t.Errorf("delta-int8 sent %.0f bytes a peer against %.0f for f32: ratio %.2f, want about 4", last(q.bytes), last(f32.bytes), ratio)
	}
	if f32.final < 0.5 || math.Abs(f32.final-q.final) > 0.05 {
		t.Errorf("final accuracy f32 %.4f, delta-int8 %.4f", f32.final, q.final)
	}
	if again := run("delta-int8"); again.final != q.final || !slices.Equal(again.bytes, q.bytes) {
		t.Errorf("same seed, another run: %.4f %v against %.4f %v", again.final, again.bytes, q.final, q.bytes)
	}
	f32, q = compressionCellOf(t, "fedlay", "f32", train, test), compressionCellOf(t, "fedlay", "delta-int4", train, test)
	if ratio := last(f32.bytes) / last(q.bytes); ratio < 5 || ratio > 8 {
		t.Errorf("fedlay: delta-int4 sent %.0f bytes a peer against %.0f for f32: ratio %.2f, want 5 to 8", last(q.bytes), last(f32.bytes), ratio)
	}
	if f32.final < 0.5 || math.Abs(f32.final-q.final) > 0.05 {
		t.Errorf("fedlay: final accuracy f32 %.4f, delta-int4 %.4f", f32.final, q.final)
	}
}

func compressionCellOf(t *testing.T, method, codec string, train, test *data.Dataset) compressionCell {
	t.Helper()
	c, err := compressionRun(context.Background(), method, codec, "mnist", 4, 4, 1, train, test)
	if err != nil {
		t.Fatalf("%s %s: %v", method, codec, err)
	}
	return c
}
