package data

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// idxFile builds an IDX ubyte file with the given dimensions and values.
func idxFile(dims []uint32, values []byte) []byte {
	b := []byte{0, 0, idxUbyte, byte(len(dims))}
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, d)
	}
	return append(b, values...)
}

// fixture returns a small images file (n images of rows x cols, pixel
// value (i*7+j*13)%256) and a labels file with the given labels.
func fixture(rows, cols int, labels []byte) (images, lbls []byte) {
	n := len(labels)
	pix := make([]byte, n*rows*cols)
	for i := range pix {
		pix[i] = byte((i*7 + (i/(rows*cols))*13) % 256)
	}
	return idxFile([]uint32{uint32(n), uint32(rows), uint32(cols)}, pix),
		idxFile([]uint32{uint32(n)}, labels)
}

func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// synth returns a dataset of 2x2 images with perClass[c] samples of label
// c, interleaved across classes, each pixel holding the sample index.
func synth(perClass []int) *Dataset {
	d := &Dataset{Name: "synth", Shape: [3]int{2, 2, 1}, Classes: len(perClass)}
	left := append([]int(nil), perClass...)
	for more := true; more; {
		more = false
		for c := range left {
			if left[c] > 0 {
				left[c]--
				more = true
				i := float32(len(d.Y))
				d.X = append(d.X, i, i, i, i)
				d.Y = append(d.Y, int32(c))
			}
		}
	}
	return d
}

func uniform(classes, each int) []int {
	p := make([]int, classes)
	for i := range p {
		p[i] = each
	}
	return p
}

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }
