package data

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
)

// LoadManifest reads the train and test sets m describes from fsys (the
// data set's root): each file's SHA-256 must be the manifest's, each
// image decodes and is resized to m.Input, each CSV row fits (ReadCSV);
// then m.Normalize is applied. The first file that does not fit is
// refused with its path and the reason (ErrManifest).
func LoadManifest(fsys fs.FS, m *Manifest) (train, test *Dataset, err error) {
	if fsys == nil || m == nil {
		return nil, nil, fmt.Errorf("%w: nil fs.FS or manifest", ErrInvalid)
	}
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	shape := m.Shape()
	sets := map[string]*Dataset{
		"train": {Name: m.Format, Shape: shape, Classes: len(m.Classes)},
		"test":  {Name: m.Format, Shape: shape, Classes: len(m.Classes)},
	}
	label := make(map[string]int32, len(m.Classes))
	for i, n := range m.Classes {
		label[n] = int32(i)
	}
	for i, f := range m.Files {
		b, err := readVerified(fsys, f)
		if err != nil {
			return nil, nil, fmt.Errorf("files[%d] %s: %w", i, f.Path, err)
		}
		d := sets[f.Split]
		if m.Format == FormatCSV {
			x, y, err := ReadCSV(b, m)
			if err != nil {
				return nil, nil, fmt.Errorf("files[%d] %s: %w", i, f.Path, err)
			}
			d.X, d.Y = append(d.X, x...), append(d.Y, y...)
			continue
		}
		x, err := DecodeImage(b, shape)
		if err != nil {
			return nil, nil, fmt.Errorf("files[%d] %s: %w", i, f.Path, err)
		}
		d.X, d.Y = append(d.X, x...), append(d.Y, label[f.Class])
	}
	for _, d := range sets {
		m.Normalize.apply(d.X, shape)
	}
	return sets["train"], sets["test"], nil
}

// readVerified reads one file, at most MaxFileBytes, and checks its hash.
func readVerified(fsys fs.FS, f ManifestFile) ([]byte, error) {
	r, err := fsys.Open(f.Path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMissing, err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrManifest, err)
	}
	if len(b) > MaxFileBytes {
		return nil, manifestErr("larger than %d bytes", MaxFileBytes)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != f.SHA256 {
		return nil, manifestErr("sha256 mismatch: the manifest says %s, the file has %s", f.SHA256, got)
	}
	return b, nil
}
