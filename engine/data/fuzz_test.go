package data

import (
	"errors"
	"testing"
)

// The decoders must return a well-formed Dataset or an error wrapping one
// of the package's sentinels, never panic. Seeds live in
// testdata/fuzz/<FuzzName>/; run with `go test -fuzz FuzzReadIDX ./data/`.

func FuzzReadIDX(f *testing.F) {
	images, labels := fixture(2, 3, []byte{1, 0, 9})
	f.Add(images, labels)
	f.Add(gz(f, images), gz(f, labels))
	f.Fuzz(func(t *testing.T, images, labels []byte) {
		d, err := ReadIDX(images, labels)
		if err != nil {
			if !isSentinel(err) || d != nil {
				t.Fatalf("error %v (dataset %v)", err, d != nil)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("decoded an invalid dataset: %v", err)
		}
		for _, v := range d.X {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("pixel %v outside [0, 1]", v)
			}
		}
	})
}

func FuzzDecodeImages(f *testing.F) {
	images, _ := fixture(3, 2, []byte{1, 2})
	f.Add(images)
	f.Add(gz(f, images))
	f.Fuzz(func(t *testing.T, b []byte) {
		x, shape, err := DecodeImages(b)
		if err != nil {
			if !isSentinel(err) {
				t.Fatalf("error %v", err)
			}
			return
		}
		if shape[0] < 1 || shape[1] < 1 || shape[2] != 1 || len(x)%(shape[0]*shape[1]) != 0 {
			t.Fatalf("shape %v for %d values", shape, len(x))
		}
	})
}

func FuzzDecodeLabels(f *testing.F) {
	_, labels := fixture(1, 1, []byte{0, 4, 9})
	f.Add(labels, 10)
	f.Add(gz(f, labels), 5)
	f.Fuzz(func(t *testing.T, b []byte, classes int) {
		y, err := DecodeLabels(b, classes)
		if err != nil {
			if !isSentinel(err) {
				t.Fatalf("error %v", err)
			}
			return
		}
		for _, l := range y {
			if l < 0 || int(l) >= classes {
				t.Fatalf("label %d with %d classes", l, classes)
			}
		}
	})
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"iid", "dirichlet:0.5", "shards:8", "zipf:1.2", "rotate:0.5", "shards:2+rotate:0.5"} {
		f.Add(s)
	}
	d := synth(uniform(4, 5))
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseSpec(s)
		if err != nil {
			if !errors.Is(err, ErrSpec) {
				t.Fatalf("error %v", err)
			}
			return
		}
		if back, err := ParseSpec(spec.String()); err != nil || back != spec {
			t.Fatalf("%q parsed to %+v, which prints as %q and reads back as %+v, %v", s, spec, spec.String(), back, err)
		}
		shards, err := spec.Split(d, 3, seeded(1))
		if err != nil {
			if !isSentinel(err) {
				t.Fatalf("split error %v", err)
			}
			return
		}
		checkShards(t, s, d, shards, 3)
	})
}

func isSentinel(err error) bool {
	for _, s := range []error{ErrFormat, ErrTooLarge, ErrLabel, ErrMismatch, ErrInvalid, ErrSpec} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}
