package data

import (
	"fmt"
	"io"
)

// pixelScale maps a byte to [0, 1]: v/255, exactly as a division would.
var pixelScale = func() (t [256]float32) {
	for i := range t {
		t[i] = float32(i) / 255
	}
	return t
}()

// DecodeImages decodes an idx3-ubyte images file, raw or gzip (detected by
// its magic number), into pixel values scaled to [0, 1], row-major, one
// image after another. shape is {rows, cols, 1}; the image count is
// len(x) / (rows*cols).
func DecodeImages(b []byte) (x []float32, shape [3]int, err error) {
	dims, payload, err := idxPayload(b, imageDims, "images")
	if err != nil {
		return nil, shape, err
	}
	if dims[1] == 0 || dims[2] == 0 {
		return nil, shape, fmt.Errorf("%w: images: empty image size %dx%d", ErrFormat, dims[1], dims[2])
	}
	x = make([]float32, len(payload))
	for i, v := range payload {
		x[i] = pixelScale[v]
	}
	return x, [3]int{dims[1], dims[2], 1}, nil
}

// DecodeLabels decodes an idx1-ubyte labels file, raw or gzip, checking
// that every label is below classes (1..256).
func DecodeLabels(b []byte, classes int) ([]int32, error) {
	if classes < 1 || classes > 256 {
		return nil, fmt.Errorf("%w: classes %d, want 1..256 for byte labels", ErrInvalid, classes)
	}
	_, payload, err := idxPayload(b, labelDims, "labels")
	if err != nil {
		return nil, err
	}
	y := make([]int32, len(payload))
	for i, v := range payload {
		if int(v) >= classes {
			return nil, fmt.Errorf("%w: labels: label[%d] = %d, want < %d classes", ErrLabel, i, v, classes)
		}
		y[i] = int32(v)
	}
	return y, nil
}

// ReadIDX decodes a dataset from an idx3-ubyte images file and an
// idx1-ubyte labels file, each raw or gzip, with DefaultClasses classes.
// This is the core of every loader: a browser fetches the bytes and calls
// it directly.
func ReadIDX(images, labels []byte) (*Dataset, error) {
	return ReadIDXClasses(images, labels, DefaultClasses)
}

// ReadIDXClasses is ReadIDX for a dataset with the given number of classes.
func ReadIDXClasses(images, labels []byte, classes int) (*Dataset, error) {
	y, err := DecodeLabels(labels, classes)
	if err != nil {
		return nil, err
	}
	x, shape, err := DecodeImages(images)
	if err != nil {
		return nil, err
	}
	if n := len(x) / (shape[0] * shape[1] * shape[2]); n != len(y) {
		return nil, fmt.Errorf("%w: %d images, %d labels", ErrMismatch, n, len(y))
	}
	return &Dataset{X: x, Y: y, Shape: shape, Classes: classes}, nil
}

// ReadIDXFrom is ReadIDX over readers; each is read to its end, at most
// MaxIDXBytes.
func ReadIDXFrom(images, labels io.Reader) (*Dataset, error) {
	ib, err := readAtMost(images, MaxIDXBytes, "images")
	if err != nil {
		return nil, err
	}
	lb, err := readAtMost(labels, MaxIDXBytes, "labels")
	if err != nil {
		return nil, err
	}
	return ReadIDX(ib, lb)
}

// readAtMost reads r to its end, refusing more than limit bytes.
func readAtMost(r io.Reader, limit int64, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("data: reading %s: %w", what, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: %s: more than %d bytes", ErrTooLarge, what, limit)
	}
	return b, nil
}
