package data

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// source says where one named dataset lives under the data directory, as
// laid out by scripts/fetch-data.sh.
type source struct {
	dir     string // folder under the data directory
	suffix  string // "" for raw files, ".gz" for gzip
	classes int
}

var sources = map[string]source{
	"mnist":         {dir: "mnist", classes: 10},
	"fashion-mnist": {dir: "fashion-mnist", suffix: ".gz", classes: 10},
}

// Names returns the names Load accepts, sorted.
func Names() []string {
	var names []string
	for n := range sources {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Load reads the train and test sets of a named dataset ("mnist" or
// "fashion-mnist") from fsys, which is rooted at the data directory that
// `make data` fills (callers pass os.DirFS(os.Getenv("PEERLEARN_DATA"))).
// A missing file gives an error wrapping ErrMissing and fs.ErrNotExist.
func Load(fsys fs.FS, name string) (train, test *Dataset, err error) {
	src, ok := sources[name]
	if !ok {
		return nil, nil, fmt.Errorf("%w: %q (known: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	if fsys == nil {
		return nil, nil, fmt.Errorf("%w: nil fs.FS", ErrInvalid)
	}
	train, err = loadSplit(fsys, name, src, "train", "train")
	if err != nil {
		return nil, nil, err
	}
	test, err = loadSplit(fsys, name, src, "t10k", "test")
	if err != nil {
		return nil, nil, err
	}
	if train.Shape != test.Shape {
		return nil, nil, fmt.Errorf("%w: %s train images are %v, test images %v", ErrMismatch, name, train.Shape, test.Shape)
	}
	return train, test, nil
}

// loadSplit reads one split, PREFIX-images-idx3-ubyte and
// PREFIX-labels-idx1-ubyte, and names it NAME/SPLIT.
func loadSplit(fsys fs.FS, name string, src source, prefix, split string) (*Dataset, error) {
	imgPath := src.dir + "/" + prefix + "-images-idx3-ubyte" + src.suffix
	lblPath := src.dir + "/" + prefix + "-labels-idx1-ubyte" + src.suffix
	images, err := readFile(fsys, imgPath)
	if err != nil {
		return nil, err
	}
	labels, err := readFile(fsys, lblPath)
	if err != nil {
		return nil, err
	}
	d, err := ReadIDXClasses(images, labels, src.classes)
	if err != nil {
		return nil, fmt.Errorf("%s/%s: %w", name, split, err)
	}
	d.Name = name + "/" + split
	return d, nil
}

// readFile reads one file of at most MaxIDXBytes, saying how to fetch it
// when it is missing.
func readFile(fsys fs.FS, path string) ([]byte, error) {
	f, err := fsys.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s (%w): run `make data` and point PEERLEARN_DATA or -data at its directory", ErrMissing, path, fs.ErrNotExist)
		}
		return nil, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	return readAtMost(f, MaxIDXBytes, path)
}
