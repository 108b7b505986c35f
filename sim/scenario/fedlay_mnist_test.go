package scenario

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// dataDir returns PEERLEARN_DATA, or skips the test when MNIST is not
// there (make test fetches it first).
func dataDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("PEERLEARN_DATA")
	if dir == "" {
		t.Skip("PEERLEARN_DATA is not set: run `make data` (make test does) to run the MNIST scenarios")
	}
	if _, err := os.Stat(filepath.Join(dir, "mnist", "train-images-idx3-ubyte")); err != nil {
		t.Skipf("no MNIST under PEERLEARN_DATA=%s: %v", dir, err)
	}
	return dir
}

// runQuick runs a scenario's quick variant and returns its summary line,
// its printed output and its output folder.
func runQuick(t *testing.T, name string) (line, out, dir string) {
	t.Helper()
	data := dataDir(t)
	s, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	var buf bytes.Buffer
	line, err = s.Run(context.Background(), Options{Quick: true, Seed: 1, DataDir: data, OutDir: dir, Stdout: &buf, Progress: io.Discard, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s\n%s", buf.String(), line)
	return line, buf.String(), dir
}

// floats parses the named numbers out of a summary line matched by re.
func floats(t *testing.T, re, line string) []float64 {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("summary line %q does not match %s", line, re)
	}
	out := make([]float64, len(m)-1)
	for i, s := range m[1:] {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		out[i] = v
	}
	return out
}

// TestFedLayMNISTQuick checks the direction of Table III: FedLay is close
// to the FedAvg upper bound (not above it) and well above a ring with the
// same learning. The quick run is 40 clients for 12 periods, short of
// convergence, so the margin to FedAvg is wider than the full run's.
func TestFedLayMNISTQuick(t *testing.T) {
	line, out, dir := runQuick(t, "fedlay-mnist")
	v := floats(t, `^scenario=fedlay-mnist acc_fedlay=(\d+\.\d+) acc_fedavg=(\d+\.\d+) acc_ring=(\d+\.\d+) acc_chord=(\d+\.\d+)$`, line)
	fedlay, fedavg, ring, chord := v[0], v[1], v[2], v[3]
	if fedlay < 80 || fedavg < 85 {
		t.Errorf("accuracies too low to mean anything: FedLay %.2f, FedAvg %.2f", fedlay, fedavg)
	}
	if fedlay > fedavg+0.5 || fedavg-fedlay > 5 {
		t.Errorf("FedLay %.2f vs FedAvg %.2f: want FedLay below the upper bound and within 5 points (quick scale)", fedlay, fedavg)
	}
	if fedlay < ring+2 {
		t.Errorf("FedLay %.2f vs ring %.2f: want FedLay at least 2 points above the ring", fedlay, ring)
	}
	if fedlay < chord-1.5 {
		t.Errorf("FedLay %.2f vs Chord %.2f: want FedLay not below Chord by more than 1.5 points", fedlay, chord)
	}
	if !strings.Contains(out, "quick: 40 clients instead of 100") {
		t.Errorf("the printed output does not state the scale-down:\n%s", out)
	}
	for _, f := range []string{"fedlay_mnist.csv", "fedlay_mnist_acc.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
