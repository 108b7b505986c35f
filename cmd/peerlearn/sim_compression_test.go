package main

import (
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/sim/scenario"
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

// The scenario's quick mode end to end (a subset: FedLay's MEP, D-PSGD,
// whose window takes its mixes, and Plexus, with delta-int4): the table
// says which window the final accuracy averages over and gives each gap
// with its standard error, the CSV has both measurements a run, and the
// last line keeps its format.
func TestCompressionQuick(t *testing.T) {
	dir := os.Getenv("PEERLEARN_DATA")
	if dir == "" {
		t.Skip("PEERLEARN_DATA is not set: run `make data` (make test does)")
	}
	if _, err := os.Stat(filepath.Join(dir, "mnist", "train-images-idx3-ubyte")); err != nil {
		t.Skipf("no MNIST under PEERLEARN_DATA=%s: %v", dir, err)
	}
	t.Setenv(compressionSelectEnv, "codecs=delta-int4 methods=fedlay,dpsgd,plexus")
	var out strings.Builder
	o := scenario.Options{Quick: true, Seed: 1, DataDir: dir, OutDir: t.TempDir(), Stdout: &out, Progress: io.Discard, Logf: t.Logf}
	line, err := runCompression(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^scenario=compression dataset=mnist best=delta-int4 bytes_ratio=\d+\.\d\d acc_gap=-?\d+\.\d\d methods=fedlay,dpsgd,plexus$`).MatchString(line) {
		t.Errorf("summary %q", line)
	}
	if !strings.Contains(out.String(), "last 2 of 8 rounds") {
		t.Errorf("the table does not name the window (2 of quick mode's 8 rounds):\n%s", out.String())
	}
	row := regexp.MustCompile(`(?m)^(fedlay|dpsgd|plexus) +delta-int4 +0\.\d{4} .* -?\d+\.\d\d +\d+\.\d\d +-?\d+\.\d\d +\d+\.\d\d$`)
	if got := len(row.FindAllString(out.String(), -1)); got != 3 {
		t.Errorf("%d delta-int4 rows with gap, se, end gap, se; want 3:\n%s", got, out.String())
	}
	csv, err := os.ReadFile(filepath.Join(o.OutDir, "compression.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(csv), "method,codec,seed,final_acc,end_acc,") || strings.Count(string(csv), "\n") != 7 {
		t.Errorf("compression.csv:\n%s", csv)
	}
}
