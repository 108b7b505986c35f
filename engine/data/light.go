package data

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// Light data: what a browser tab downloads instead of a whole dataset.
// A build step (wasm/lightdata) cuts every shard of a task's partition
// with the code every peer cuts its shard with (Partition, then Client)
// and a test subset (the first LightTestSamples test samples), and writes
// each as light files (EncodeLight: the images as a pixel code, one byte
// a pixel coded from its neighbours, the labels as gzipped IDX) under the
// data directory; the signalling server serves them as they are (static
// files: exact Content-Length, ranges), and the tab decodes them with
// ReadLight, which gives back the very float32 values the shard had. For
// MNIST an eighth of the train set is about 0.84 MB (1.12 MB as gzipped
// IDX) instead of 12 MB for both whole sets.

// LightTestSamples is the size of the light test subset: the first
// LightTestSamples samples of the test set. 500 keeps a demo tab's
// download under issue #25's 4 MB (1,000 cost 0.06 MB more) and measures
// an accuracy near 90% within about 1.3 points (one standard error); the
// page says on how many samples.
const LightTestSamples = 500

// LightManifest describes one partition's light shards (LightDir's
// manifest.json): what the tab needs besides the samples.
type LightManifest struct {
	Dataset   string `json:"dataset"`
	Partition string `json:"partition"` // canonical spec
	Parts     int    `json:"parts"`
	Seed      uint64 `json:"seed"`
	Samples   []int  `json:"samples"` // per shard
	Rotated   []bool `json:"rotated"` // per shard: its images (and the test set it is measured on) are rotated
}

// LightDir returns the directory, relative to the data directory, of the
// light shards of dataset's partition (spec, parts, seed): named by a
// hash of the canonical spec, so that every spelling of one partition
// finds the same files.
func LightDir(dataset, spec string, parts int, seed uint64) (string, error) {
	if _, ok := sources[dataset]; !ok {
		return "", fmt.Errorf("%w: %q", ErrUnknown, dataset)
	}
	s, err := ParseSpec(spec)
	if err != nil {
		return "", err
	}
	if parts < 1 {
		return "", fmt.Errorf("%w: %d parts", ErrInvalid, parts)
	}
	h := sha256.Sum256(fmt.Appendf(nil, "%s|%s|%d|%d", dataset, s.String(), parts, seed))
	return fmt.Sprintf("light/%s/%x-%d", dataset, h[:8], parts), nil
}

// LightShardFiles returns the names, in LightDir, of shard k's images (a
// pixel code, pixelcode.go) and labels (gzipped IDX).
func LightShardFiles(k int) (images, labels string) {
	return fmt.Sprintf("shard-%d-images.plpx", k), fmt.Sprintf("shard-%d-labels-idx1-ubyte.gz", k)
}

// LightTestFiles returns the paths, relative to the data directory, of
// dataset's light test subset.
func LightTestFiles(dataset string) (images, labels string) {
	dir := fmt.Sprintf("light/%s/test-%d/", dataset, LightTestSamples)
	return dir + "images.plpx", dir + "labels-idx1-ubyte.gz"
}

// EncodeLight encodes d as light files: its images as a pixel code
// (pixelcode.go: for MNIST about 75% of gzipped IDX) and its labels as
// gzipped idx1-ubyte; ReadLight decodes them back to d's values exactly.
// It refuses what EncodeIDX refuses.
func EncodeLight(d *Dataset) (images, labels []byte, err error) {
	px, err := pixelBytes(d)
	if err != nil {
		return nil, nil, err
	}
	if images, err = EncodePixels(px, d.Len(), d.Shape[0], d.Shape[1]); err != nil {
		return nil, nil, err
	}
	if labels, err = gzipBytes(labelBytes(d)); err != nil {
		return nil, nil, err
	}
	return images, labels, nil
}

// ReadLight decodes EncodeLight's images and labels (classes as
// ReadIDXClasses takes them); yield as DecodePixels calls it.
func ReadLight(images, labels []byte, classes int, yield func()) (*Dataset, error) {
	y, err := DecodeLabels(labels, classes)
	if err != nil {
		return nil, err
	}
	px, n, rows, cols, err := DecodePixels(images, yield)
	if err != nil {
		return nil, err
	}
	if n != len(y) {
		return nil, fmt.Errorf("%w: %d images, %d labels", ErrMismatch, n, len(y))
	}
	x := make([]float32, len(px))
	for i, v := range px {
		x[i] = pixelScale[v]
	}
	return &Dataset{X: x, Y: y, Shape: [3]int{rows, cols, 1}, Classes: classes}, nil
}

// EncodeIDX encodes d as gzipped idx3-ubyte images and idx1-ubyte labels
// files that ReadIDXClasses decodes back to d's values exactly. It
// refuses what a byte cannot hold: more than one channel, more than 256
// classes, or a pixel that is not v/255 for a byte v (as decoded).
func EncodeIDX(d *Dataset) (images, labels []byte, err error) {
	px, err := pixelBytes(d)
	if err != nil {
		return nil, nil, err
	}
	hdr := make([]byte, 16, 16+len(px))
	binary.BigEndian.PutUint32(hdr[0:], 0x00000803)
	binary.BigEndian.PutUint32(hdr[4:], uint32(d.Len()))
	binary.BigEndian.PutUint32(hdr[8:], uint32(d.Shape[0]))
	binary.BigEndian.PutUint32(hdr[12:], uint32(d.Shape[1]))
	if images, err = gzipBytes(append(hdr, px...)); err != nil {
		return nil, nil, err
	}
	if labels, err = gzipBytes(labelBytes(d)); err != nil {
		return nil, nil, err
	}
	return images, labels, nil
}

// pixelBytes returns d's pixels as bytes (v for v/255), refusing what a
// byte cannot hold: more than one channel, more than 256 classes, or a
// pixel that is not v/255 for a byte v (as decoded).
func pixelBytes(d *Dataset) ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if d.Shape[2] != 1 || d.Classes > 256 {
		return nil, fmt.Errorf("%w: shape %v, %d classes: IDX bytes hold one channel and at most 256 classes", ErrInvalid, d.Shape, d.Classes)
	}
	px := make([]byte, len(d.X))
	for i, x := range d.X {
		v := x*255 + 0.5
		if !(v >= 0 && v < 256) || pixelScale[byte(v)] != x {
			return nil, fmt.Errorf("%w: pixel %d = %v is not a byte over 255", ErrInvalid, i, x)
		}
		px[i] = byte(v)
	}
	return px, nil
}

// labelBytes returns d's labels as an idx1-ubyte file (Validate checked
// 0 <= y < Classes <= 256).
func labelBytes(d *Dataset) []byte {
	lb := make([]byte, 8+d.Len())
	binary.BigEndian.PutUint32(lb[0:], 0x00000801)
	binary.BigEndian.PutUint32(lb[4:], uint32(d.Len()))
	for i, y := range d.Y {
		lb[8+i] = byte(y)
	}
	return lb
}

func gzipBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
