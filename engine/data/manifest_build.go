package data

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// BuildManifest scans a data set's root in fsys and returns its manifest
// (no normalisation): for FormatImages, the class folders of train/ (in
// sorted order) and every .png, .jpg or .jpeg under train/<class>/ and
// test/<class>/; for FormatCSV, train.csv and test.csv, the classes being
// the sorted distinct values of train.csv's label column. Anything that
// does not fit (a test class folder train lacks, a file that is not an
// image, a loose file beside the class folders) is refused by name.
func BuildManifest(fsys fs.FS, format string, input [3]int, label string) (*Manifest, error) {
	m := &Manifest{Version: ManifestVersion, Format: format, Input: input[:], Label: label}
	switch format {
	case FormatCSV:
		for _, split := range []string{"train", "test"} {
			f, err := scanFile(fsys, split+".csv", split, "")
			if err != nil {
				return nil, err
			}
			m.Files = append(m.Files, f)
		}
		b, err := fs.ReadFile(fsys, "train.csv")
		if err != nil {
			return nil, err
		}
		classes, err := csvLabels(b, label)
		if err != nil {
			return nil, err
		}
		m.Classes = classes
	case FormatImages:
		classes, err := classFolders(fsys, "train")
		if err != nil {
			return nil, err
		}
		m.Classes = classes
		for _, split := range []string{"train", "test"} {
			folders, err := classFolders(fsys, split)
			if err != nil {
				return nil, err
			}
			for _, c := range folders {
				if !slices.Contains(classes, c) {
					return nil, manifestErr("%s/%s: unknown class folder (train has %v)", split, c, classes)
				}
				entries, err := fs.ReadDir(fsys, split+"/"+c)
				if err != nil {
					return nil, err
				}
				for _, e := range entries {
					p := split + "/" + c + "/" + e.Name()
					ext := strings.ToLower(path.Ext(e.Name()))
					if e.IsDir() || (ext != ".png" && ext != ".jpg" && ext != ".jpeg") {
						return nil, manifestErr("%s: not a .png, .jpg or .jpeg image", p)
					}
					f, err := scanFile(fsys, p, split, c)
					if err != nil {
						return nil, err
					}
					m.Files = append(m.Files, f)
				}
			}
		}
	default:
		return nil, manifestErr("format %q: want %q or %q", format, FormatImages, FormatCSV)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// classFolders lists the folders under dir, refusing anything else.
func classFolders(fsys fs.FS, dir string) ([]string, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, manifestErr("%s: %v (want one folder per class)", dir, err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			return nil, manifestErr("%s/%s: a file beside the class folders", dir, e.Name())
		}
		out = append(out, e.Name())
	}
	slices.Sort(out)
	return out, nil
}

func scanFile(fsys fs.FS, p, split, class string) (ManifestFile, error) {
	b, err := fs.ReadFile(fsys, p)
	if err != nil {
		return ManifestFile{}, err
	}
	if len(b) > MaxFileBytes {
		return ManifestFile{}, manifestErr("%s: larger than %d bytes", p, MaxFileBytes)
	}
	sum := sha256.Sum256(b)
	return ManifestFile{Path: p, SHA256: hex.EncodeToString(sum[:]), Split: split, Class: class}, nil
}

// csvLabels returns the sorted distinct values of a CSV file's label
// column.
func csvLabels(b []byte, label string) ([]string, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, manifestErr("train.csv header: %v", err)
	}
	col := slices.IndexFunc(header, func(h string) bool { return strings.TrimSpace(h) == label })
	if col < 0 {
		return nil, manifestErr("train.csv header: no %q column", label)
	}
	seen := map[string]bool{}
	for len(seen) <= MaxManifestClasses {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, manifestErr("train.csv: %v", err)
		}
		if col < len(rec) {
			seen[strings.TrimSpace(rec[col])] = true
		}
	}
	return sortedKeys(seen), nil
}
