package scenario

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/peerlearn/peerlearn/engine/data"
)

// errLoaded stops a scenario right after its data set is loaded.
var errLoaded = errors.New("loaded")

// dataDirWith lays out a tiny copy of one data set (four 28x28 images),
// the way scripts/fetch-data.sh lays out the real ones, and nothing else.
func dataDirWith(t *testing.T, name string) string {
	t.Helper()
	root := t.TempDir()
	layout := map[string][2]string{"mnist": {"mnist", ""}, "fashion-mnist": {"fashion-mnist", ".gz"}}[name]
	dir, suffix := layout[0], layout[1]
	if dir == "" {
		t.Fatalf("no layout for data set %q", name)
	}
	if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
		t.Fatal(err)
	}
	idx := func(magic uint32, dims []uint32, body []byte) []byte {
		b := binary.BigEndian.AppendUint32(nil, magic)
		for _, d := range dims {
			b = binary.BigEndian.AppendUint32(b, d)
		}
		b = append(b, body...)
		if suffix == "" {
			return b
		}
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	labels := []byte{5, 0, 4, 1}
	for _, prefix := range []string{"train", "t10k"} {
		files := map[string][]byte{
			prefix + "-images-idx3-ubyte": idx(0x803, []uint32{4, 28, 28}, make([]byte, 4*28*28)),
			prefix + "-labels-idx1-ubyte": idx(0x801, []uint32{4}, labels),
		}
		for f, b := range files {
			if err := os.WriteFile(filepath.Join(root, dir, f+suffix), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// TestDatasetReachesTheLoader runs every scenario that learns a data set
// with each -dataset over a data folder holding only that set: it must
// load exactly that set (the loaded set's name says which), and fail on
// a folder holding only the other one. Unknown names are refused before
// any work, and a scenario without data refuses any -dataset.
func TestDatasetReachesTheLoader(t *testing.T) {
	var loaded []string
	afterLoad = func(train, test *data.Dataset) error {
		loaded = append(loaded, train.Name, test.Name)
		return errLoaded
	}
	defer func() { afterLoad = nil }()
	run := func(s Scenario, dataset, dir string) error {
		loaded = nil
		_, err := s.Run(context.Background(), Options{Quick: true, Seed: 1, Dataset: dataset, DataDir: dir,
			OutDir: t.TempDir(), Stdout: io.Discard, Progress: io.Discard, Logf: t.Logf})
		return err
	}
	names := data.Names()
	if len(names) != 2 {
		t.Fatalf("data sets %v: this test pairs each with another", names)
	}
	var learning int
	for _, s0 := range All() {
		s, err := Lookup(s0.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Data {
			if err := run(s, "fashion-mnist", t.TempDir()); !errors.Is(err, ErrDataset) {
				t.Errorf("%s learns no data set: -dataset fashion-mnist gave %v, want ErrDataset", s.Name, err)
			}
			continue
		}
		learning++
		for i, name := range names {
			other := names[1-i]
			if err := run(s, name, dataDirWith(t, name)); !errors.Is(err, errLoaded) || len(loaded) != 2 ||
				loaded[0] != name+"/train" || loaded[1] != name+"/test" {
				t.Errorf("%s -dataset %s: %v, loaded %v", s.Name, name, err, loaded)
			}
			if err := run(s, name, dataDirWith(t, other)); !errors.Is(err, ErrNoData) || loaded != nil {
				t.Errorf("%s -dataset %s over a folder of %s only: %v (loaded %v), want ErrNoData", s.Name, name, other, err, loaded)
			}
		}
		if err := run(s, "", dataDirWith(t, "mnist")); !errors.Is(err, errLoaded) || len(loaded) != 2 || loaded[0] != "mnist/train" {
			t.Errorf("%s without -dataset: %v, loaded %v, want mnist", s.Name, err, loaded)
		}
		for _, bad := range []string{"cifar10", "MNIST", "mnist "} {
			if err := run(s, bad, dataDirWith(t, "mnist")); !errors.Is(err, ErrDataset) || loaded != nil {
				t.Errorf("%s -dataset %q: %v (loaded %v), want ErrDataset", s.Name, bad, err, loaded)
			}
		}
	}
	if learning < 6 {
		t.Errorf("%d scenarios learn a data set, want at least 6 (fedlay, dechw, init-gain, pens, plexus, byzantine)", learning)
	}
}
