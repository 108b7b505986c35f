package data

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// A volunteer's own files of a task's form (issue #24 item 2): the
// browser tab's picked folder or CSV file, read in the tab and never
// uploaded. They are not in the task's manifest (they are the
// volunteer's), so there is no hash to check; the manifest gives the
// form they must have (image folder or CSV, the sample shape, the class
// names, the normalisation), and LoadOwn checks each file against it with
// a message naming the file and what does not fit.

// OwnFile is one file a volunteer picked: its path as the browser gives
// it (for a folder, "folder/class/file.png") and its bytes.
type OwnFile struct {
	Path string
	Data []byte
}

// Own data limits.
const (
	// MaxOwnFiles bounds the files of one pick.
	MaxOwnFiles = 1 << 16
	// MaxOwnBytes bounds their bytes together.
	MaxOwnBytes = 512 << 20
	// OwnHoldout: without a test split, every OwnHoldout-th sample is held
	// out to evaluate on.
	OwnHoldout = 5
)

// LoadOwn reads a volunteer's files of m's form. Images: each PNG or JPEG
// in a folder named for one of m's classes ("<class>/<file>", any folders
// above it; under a folder named "test", a test sample), resized to
// m.Input; other files (a manifest, notes) are skipped. CSV: each .csv
// file as ReadCSV reads it for m. Then m's normalisation. Without test
// samples, every OwnHoldout-th sample is held out as the test set. Errors
// wrap ErrManifest and name the file.
func LoadOwn(files []OwnFile, m *Manifest) (train, test *Dataset, err error) {
	if m == nil {
		return nil, nil, fmt.Errorf("%w: no manifest", ErrInvalid)
	}
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	if len(files) > MaxOwnFiles {
		return nil, nil, manifestErr("%d files: at most %d", len(files), MaxOwnFiles)
	}
	total := 0
	for _, f := range files {
		total += len(f.Data)
	}
	if total > MaxOwnBytes {
		return nil, nil, manifestErr("%d bytes of files: at most %d", total, MaxOwnBytes)
	}
	shape := m.Shape()
	train = &Dataset{Name: "own " + m.Format, Shape: shape, Classes: len(m.Classes)}
	test = &Dataset{Name: "own " + m.Format, Shape: shape, Classes: len(m.Classes)}
	label := make(map[string]int32, len(m.Classes))
	for i, n := range m.Classes {
		label[n] = int32(i)
	}
	var skipped []string
	for _, f := range files {
		p := path.Clean(strings.ReplaceAll(f.Path, "\\", "/"))
		ext := strings.ToLower(path.Ext(p))
		switch {
		case m.Format == FormatCSV && ext == ".csv":
			x, y, err := ReadCSV(f.Data, m)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", f.Path, err)
			}
			train.X, train.Y = append(train.X, x...), append(train.Y, y...)
		case m.Format == FormatImages && (ext == ".png" || ext == ".jpg" || ext == ".jpeg"):
			dir := path.Dir(p)
			class := path.Base(dir)
			y, ok := label[class]
			if !ok || dir == "." {
				return nil, nil, manifestErr("%s: its folder %q is not one of the task's classes %s (one folder per class)",
					f.Path, class, quoteList(m.Classes))
			}
			x, err := DecodeImage(f.Data, shape)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", f.Path, err)
			}
			d := train
			if slices.Contains(strings.Split(path.Dir(dir), "/"), "test") {
				d = test
			}
			d.X, d.Y = append(d.X, x...), append(d.Y, y)
		default:
			skipped = append(skipped, f.Path)
		}
	}
	if train.Len() == 0 {
		want := "PNG or JPEG images in one folder per class"
		if m.Format == FormatCSV {
			want = "a .csv file with a " + fmt.Sprintf("%q", m.Label) + " column"
		}
		return nil, nil, manifestErr("no training samples in %d files (%d skipped): the task wants %s", len(files), len(skipped), want)
	}
	if test.Len() == 0 && train.Len() >= OwnHoldout {
		var tr, te []int
		for i := range train.Len() {
			if i%OwnHoldout == OwnHoldout-1 {
				te = append(te, i)
			} else {
				tr = append(tr, i)
			}
		}
		all := train
		if train, err = all.Subset(tr); err != nil {
			return nil, nil, err
		}
		if test, err = all.Subset(te); err != nil {
			return nil, nil, err
		}
	}
	m.Normalize.apply(train.X, shape)
	m.Normalize.apply(test.X, shape)
	return train, test, nil
}

// quoteList quotes names for a message, at most 10 of them.
func quoteList(names []string) string {
	q := make([]string, 0, min(len(names), 11))
	for i, n := range names {
		if i == 10 {
			q = append(q, fmt.Sprintf("and %d more", len(names)-10))
			break
		}
		q = append(q, fmt.Sprintf("%q", n))
	}
	return strings.Join(q, ", ")
}
