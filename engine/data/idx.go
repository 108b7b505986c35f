package data

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
)

// MaxIDXBytes caps the size of one decompressed IDX file, header included
// (MNIST's largest is 47 MB). A header announcing more is refused before
// anything is allocated, and a gzip stream is never inflated past what its
// header announces.
const MaxIDXBytes = 1 << 28

// DefaultClasses is the number of classes ReadIDX assumes: MNIST and
// Fashion-MNIST both have 10.
const DefaultClasses = 10

// IDX layout: magic 0x00 0x00 TYPE NDIMS, then NDIMS big-endian uint32
// sizes, then the values. Only TYPE 0x08 (unsigned byte) is used here.
const (
	idxUbyte     = 0x08
	imageDims    = 3 // count, rows, cols
	labelDims    = 1 // count
	gzipMagic0   = 0x1f
	gzipMagic1   = 0x8b
	idxMagicSize = 4
)

// isGzip reports whether b starts with the gzip magic number.
func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == gzipMagic0 && b[1] == gzipMagic1 }

// idxPayload checks b (raw or gzip) as an IDX ubyte file with ndims
// dimensions and returns the dimensions and the values: a view of b when
// raw, a bounded decompression when gzip. what names the file in errors.
func idxPayload(b []byte, ndims int, what string) (dims []int, payload []byte, err error) {
	if isGzip(b) {
		return gunzipIDX(b, ndims, what)
	}
	hl := idxMagicSize + 4*ndims
	if len(b) >= idxMagicSize {
		if err := checkMagic(b[:idxMagicSize], ndims, what); err != nil {
			return nil, nil, err
		}
	}
	if len(b) < hl {
		return nil, nil, fmt.Errorf("%w: %s: %d bytes, shorter than its %d-byte header", ErrFormat, what, len(b), hl)
	}
	dims, size, err := parseIDXHeader(b[:hl], ndims, what)
	if err != nil {
		return nil, nil, err
	}
	if got := int64(len(b) - hl); got != size {
		return nil, nil, fmt.Errorf("%w: %s: header %v announces %d value bytes, file has %d", ErrFormat, what, dims, size, got)
	}
	return dims, b[hl:], nil
}

// gunzipIDX inflates a gzip IDX file, reading the header first and then at
// most the announced number of bytes (plus one, to detect trailing data).
// The buffer grows with the data actually inflated, not with the header.
func gunzipIDX(b []byte, ndims int, what string) ([]int, []byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: gzip: %v", ErrFormat, what, err)
	}
	defer zr.Close()
	hl := idxMagicSize + 4*ndims
	h := make([]byte, hl)
	if _, err := io.ReadFull(zr, h[:idxMagicSize]); err != nil {
		return nil, nil, fmt.Errorf("%w: %s: gzip: reading header: %v", ErrFormat, what, err)
	}
	if err := checkMagic(h[:idxMagicSize], ndims, what); err != nil {
		return nil, nil, err
	}
	if _, err := io.ReadFull(zr, h[idxMagicSize:]); err != nil {
		return nil, nil, fmt.Errorf("%w: %s: gzip: reading header: %v", ErrFormat, what, err)
	}
	dims, size, err := parseIDXHeader(h, ndims, what)
	if err != nil {
		return nil, nil, err
	}
	// Start small (a multiple of the compressed size) and let the buffer
	// grow: a forged header cannot make us allocate ahead of real data.
	// ReadFrom stops one byte past the announced size or at the end of the
	// gzip stream, where the reader verifies its CRC and length (a
	// mismatch is an error here).
	buf := bytes.NewBuffer(make([]byte, 0, min(size+1, 4*int64(len(b))+512)))
	if _, err := buf.ReadFrom(io.LimitReader(zr, size+1)); err != nil {
		return nil, nil, fmt.Errorf("%w: %s: gzip: %v", ErrFormat, what, err)
	}
	if got := int64(buf.Len()); got != size {
		if got > size {
			return nil, nil, fmt.Errorf("%w: %s: header %v announces %d value bytes, gzip stream has more", ErrFormat, what, dims, size)
		}
		return nil, nil, fmt.Errorf("%w: %s: header %v announces %d value bytes, gzip stream has %d", ErrFormat, what, dims, size, got)
	}
	return dims, buf.Bytes(), nil
}

// checkMagic checks the 4 magic bytes of an IDX ubyte file with ndims dimensions.
func checkMagic(m []byte, ndims int, what string) error {
	want := uint32(idxUbyte)<<8 | uint32(ndims)
	got := binary.BigEndian.Uint32(m)
	if got != want {
		return fmt.Errorf("%w: %s: magic %#010x, want %#010x (unsigned-byte IDX with %d dimensions)", ErrFormat, what, got, want, ndims)
	}
	return nil
}

// parseIDXHeader checks a full header and returns its dimensions and the
// number of value bytes they announce, refusing sizes past MaxIDXBytes.
func parseIDXHeader(h []byte, ndims int, what string) ([]int, int64, error) {
	if err := checkMagic(h[:idxMagicSize], ndims, what); err != nil {
		return nil, 0, err
	}
	dims := make([]int, ndims)
	for i := range dims {
		dims[i] = int(binary.BigEndian.Uint32(h[idxMagicSize+4*i:]))
	}
	size := int64(1)
	for _, d := range dims {
		// Each factor is below 2^32 and size stays at most 2^28 before
		// the multiplication, so the product cannot overflow int64.
		size *= int64(d)
		if size > MaxIDXBytes {
			return nil, 0, fmt.Errorf("%w: %s: header dimensions %v announce over %d bytes", ErrTooLarge, what, dims, MaxIDXBytes)
		}
	}
	if int64(len(h))+size > MaxIDXBytes {
		return nil, 0, fmt.Errorf("%w: %s: header %v announces %d bytes, over %d", ErrTooLarge, what, dims, size, MaxIDXBytes)
	}
	return dims, size, nil
}
