package data

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// fakeFS lays out generated files the way scripts/fetch-data.sh does.
func fakeFS(t *testing.T) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	for _, ds := range []struct{ dir, suffix string }{{"mnist", ""}, {"fashion-mnist", ".gz"}} {
		for prefix, labels := range map[string][]byte{"train": {5, 0, 4, 1}, "t10k": {7, 2}} {
			images, lbls := fixture(28, 28, labels)
			if ds.suffix == ".gz" {
				images, lbls = gz(t, images), gz(t, lbls)
			}
			m[ds.dir+"/"+prefix+"-images-idx3-ubyte"+ds.suffix] = &fstest.MapFile{Data: images}
			m[ds.dir+"/"+prefix+"-labels-idx1-ubyte"+ds.suffix] = &fstest.MapFile{Data: lbls}
		}
	}
	return m
}

func TestLoad(t *testing.T) {
	fsys := fakeFS(t)
	for _, name := range Names() {
		train, test, err := Load(fsys, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if train.Len() != 4 || test.Len() != 2 || train.Y[0] != 5 || test.Y[0] != 7 {
			t.Fatalf("%s: train %d samples (first label %d), test %d", name, train.Len(), train.Y[0], test.Len())
		}
		if train.Name != name+"/train" || test.Name != name+"/test" || train.Shape != [3]int{28, 28, 1} {
			t.Fatalf("%s: names %q %q, shape %v", name, train.Name, test.Name, train.Shape)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	fsys := fakeFS(t)
	delete(fsys, "mnist/t10k-labels-idx1-ubyte")
	_, _, err := Load(fsys, "mnist")
	if !errors.Is(err, ErrMissing) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "make data") ||
		!strings.Contains(err.Error(), "mnist/t10k-labels-idx1-ubyte") {
		t.Errorf("missing file: %v", err)
	}
	if _, _, err := Load(fsys, "cifar10"); !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "fashion-mnist") {
		t.Errorf("unknown dataset: %v", err)
	}
	if _, _, err := Load(nil, "mnist"); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil fs: %v", err)
	}
	fsys = fakeFS(t)
	images, lbls := fixture(14, 14, []byte{1, 2})
	fsys["mnist/t10k-images-idx3-ubyte"].Data, fsys["mnist/t10k-labels-idx1-ubyte"].Data = images, lbls
	if _, _, err := Load(fsys, "mnist"); !errors.Is(err, ErrMismatch) {
		t.Errorf("train 28x28, test 14x14: %v", err)
	}
	fsys["fashion-mnist/train-labels-idx1-ubyte.gz"].Data = []byte("not gzip, not IDX")
	if _, _, err := Load(fsys, "fashion-mnist"); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "fashion-mnist/train") {
		t.Errorf("corrupt file: %v", err)
	}
}

// TestRealData checks the fetched datasets. It runs when PEERLEARN_DATA is
// set (make test sets it) and fails if the files are not there.
func TestRealData(t *testing.T) {
	dir := os.Getenv("PEERLEARN_DATA")
	if dir == "" {
		t.Skip("PEERLEARN_DATA not set: run `make data` and set it to the data directory (make test does both)")
	}
	cases := []struct {
		name                  string
		trainFirst, testFirst []int32
		trainHist             []int
	}{
		{"mnist", []int32{5, 0, 4, 1, 9, 2, 1, 3, 1, 4}, []int32{7, 2, 1, 0, 4, 1, 4, 9, 5, 9},
			[]int{5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949}},
		{"fashion-mnist", []int32{9, 0, 0, 3, 0, 2, 7, 2, 5, 5}, []int32{9, 2, 1, 1, 6, 1, 4, 6, 5, 7},
			uniform(10, 6000)},
	}
	for _, c := range cases {
		train, test, err := Load(os.DirFS(dir), c.name)
		if err != nil {
			t.Fatalf("PEERLEARN_DATA=%s: %v", dir, err)
		}
		if train.Len() != 60000 || test.Len() != 10000 || train.Classes != 10 || train.Shape != [3]int{28, 28, 1} {
			t.Fatalf("%s: %d/%d samples, %d classes, shape %v", c.name, train.Len(), test.Len(), train.Classes, train.Shape)
		}
		for i, y := range c.trainFirst {
			if train.Y[i] != y || test.Y[i] != c.testFirst[i] {
				t.Fatalf("%s: first labels train %v test %v, want %v and %v", c.name, train.Y[:10], test.Y[:10], c.trainFirst, c.testFirst)
			}
		}
		for l, n := range train.Hist() {
			if n != c.trainHist[l] {
				t.Fatalf("%s: train histogram %v, want %v", c.name, train.Hist(), c.trainHist)
			}
		}
		lo, hi := train.X[0], train.X[0]
		for _, v := range train.X {
			lo, hi = min(lo, v), max(hi, v)
		}
		if lo != 0 || hi != 1 {
			t.Fatalf("%s: pixels in [%v, %v], want [0, 1]", c.name, lo, hi)
		}
	}
}
