package data

import (
	"bytes"
	"errors"
	"runtime"
	"slices"
	"testing"
	"testing/iotest"
)

func TestReadIDX(t *testing.T) {
	labels := []byte{3, 0, 9}
	images, lbls := fixture(2, 3, labels)
	want, err := ReadIDX(images, lbls)
	if err != nil {
		t.Fatal(err)
	}
	if want.Len() != 3 || want.Shape != [3]int{2, 3, 1} || want.Classes != 10 || want.Features() != 6 {
		t.Fatalf("got len %d shape %v classes %d", want.Len(), want.Shape, want.Classes)
	}
	for i, v := range images[16:] {
		if want.X[i] != float32(v)/255 {
			t.Fatalf("X[%d] = %v, want %v/255", i, want.X[i], v)
		}
	}
	for i, l := range labels {
		if want.Y[i] != int32(l) {
			t.Fatalf("Y[%d] = %d, want %d", i, want.Y[i], l)
		}
	}
	if x, y := want.Sample(2); y != 9 || x[0] != float32(images[16+12])/255 {
		t.Fatalf("Sample(2) = %v, %d", x, y)
	}
	// gzip is detected per file.
	for name, pair := range map[string][2][]byte{
		"gzip":        {gz(t, images), gz(t, lbls)},
		"gzip images": {gz(t, images), lbls},
		"gzip labels": {images, gz(t, lbls)},
	} {
		got, err := ReadIDX(pair[0], pair[1])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !equalData(got, want) {
			t.Fatalf("%s: decoded differently from raw", name)
		}
	}
	got, err := ReadIDXFrom(bytes.NewReader(images), bytes.NewReader(gz(t, lbls)))
	if err != nil || !equalData(got, want) {
		t.Fatalf("ReadIDXFrom: %v", err)
	}
}

func equalData(a, b *Dataset) bool {
	return a.Shape == b.Shape && a.Classes == b.Classes && slices.Equal(a.X, b.X) && slices.Equal(a.Y, b.Y)
}

func TestPixelScale(t *testing.T) {
	x, _, err := DecodeImages(idxFile([]uint32{1, 1, 3}, []byte{0, 51, 255}))
	if err != nil {
		t.Fatal(err)
	}
	if x[0] != 0 || x[1] != 0.2 || x[2] != 1 {
		t.Fatalf("pixels %v, want [0 0.2 1]", x)
	}
}

func TestReadIDXErrors(t *testing.T) {
	images, lbls := fixture(2, 2, []byte{1, 2, 3})
	gzImages := gz(t, images)
	badCRC := bytes.Clone(gzImages)
	badCRC[len(badCRC)-6] ^= 0xff
	mod := func(b []byte, f func([]byte)) []byte { b = bytes.Clone(b); f(b); return b }
	cases := []struct {
		name           string
		images, labels []byte
		want           error
	}{
		{"empty images", nil, lbls, ErrFormat},
		{"empty labels", images, nil, ErrFormat},
		{"short header", images[:10], lbls, ErrFormat},
		{"images magic on labels", images, images, ErrFormat},
		{"labels magic on images", lbls, lbls, ErrFormat},
		{"bad magic zero bytes", mod(images, func(b []byte) { b[0] = 1 }), lbls, ErrFormat},
		{"int type", mod(images, func(b []byte) { b[2] = 0x0c }), lbls, ErrFormat},
		{"truncated images", images[:len(images)-1], lbls, ErrFormat},
		{"extra image byte", append(bytes.Clone(images), 0), lbls, ErrFormat},
		{"truncated labels", images, lbls[:len(lbls)-1], ErrFormat},
		{"zero rows", idxFile([]uint32{3, 0, 2}, nil), lbls, ErrFormat},
		{"count mismatch", images, idxFile([]uint32{2}, []byte{1, 2}), ErrMismatch},
		{"mislabelled", images, idxFile([]uint32{3}, []byte{1, 10, 3}), ErrLabel},
		{"huge count", idxFile([]uint32{0xffffffff, 28, 28}, nil), lbls, ErrTooLarge},
		{"huge dims", idxFile([]uint32{0xffffffff, 0xffffffff, 0xffffffff}, nil), lbls, ErrTooLarge},
		{"huge labels", images, idxFile([]uint32{0xffffffff}, nil), ErrTooLarge},
		{"gzip truncated", gzImages[:len(gzImages)/2], lbls, ErrFormat},
		{"gzip header only", gzImages[:12], lbls, ErrFormat},
		{"gzip bad crc", badCRC, lbls, ErrFormat},
		{"gzip trailing data", gz(t, append(bytes.Clone(images), 7)), lbls, ErrFormat},
		{"gzip short payload", gz(t, images[:len(images)-1]), lbls, ErrFormat},
		{"gzip wrong magic", gz(t, lbls), lbls, ErrFormat},
		{"gzip huge count", gz(t, idxFile([]uint32{0xffffffff, 28, 28}, nil)), lbls, ErrTooLarge},
		{"gzip magic, not gzip", []byte{0x1f, 0x8b, 1, 2, 3}, lbls, ErrFormat},
	}
	for _, c := range cases {
		d, err := ReadIDX(c.images, c.labels)
		if !errors.Is(err, c.want) || d != nil {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := DecodeLabels(lbls, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("0 classes: %v", err)
	}
	if _, err := DecodeLabels(lbls, 257); !errors.Is(err, ErrInvalid) {
		t.Errorf("257 classes: %v", err)
	}
	if _, err := ReadIDXClasses(images, lbls, 3); !errors.Is(err, ErrLabel) {
		t.Errorf("label 3 with 3 classes: %v", err)
	}
	failing := iotest.ErrReader(errors.New("boom"))
	if _, err := ReadIDXFrom(failing, bytes.NewReader(lbls)); err == nil || err.Error() != "data: reading images: boom" {
		t.Errorf("failing reader: %v", err)
	}
	if _, err := readAtMost(bytes.NewReader(make([]byte, 11)), 10, "x"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("reader over the limit: %v", err)
	}
}

// A gzip bomb: a header announcing 10 small images followed by 16 MiB of
// zeros. Decoding must fail after inflating little more than the header's
// size, without allocating anything like the bomb.
func TestGzipBomb(t *testing.T) {
	bomb := gz(t, idxFile([]uint32{10, 28, 28}, make([]byte, 16<<20)))
	_, lbls := fixture(28, 28, make([]byte, 10))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ReadIDX(bomb, lbls)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrFormat) {
		t.Fatalf("bomb: %v, want ErrFormat", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Fatalf("bomb: allocated %d bytes decoding a %d-byte file announcing 7840 values", alloc, len(bomb))
	}
}
