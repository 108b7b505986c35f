package data

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrManifest: a data manifest, or a file it lists, is refused; the
// message says which field or file and what does not fit.
var ErrManifest = errors.New("data: manifest refused")

// Manifest describes a data set that is not one of the built-in IDX sets:
// an image folder or CSV files, every file with its SHA-256, so that every
// peer reads the same bytes (LoadManifest checks each hash), plus the
// sample shape, the class names and the normalisation. Its JSON keys are
// sorted, like a task spec's.
//
// An image folder holds one subfolder per class under each split:
// "train/<class>/<file>.png" and "test/<class>/<file>.jpg"; every image is
// resized to Input's height and width (bilinear) and read as greyscale
// (Input channels 1) or RGB (3), values in [0, 1]. A CSV file has a header
// row; Label names the label column, whose cells are class names; every
// other cell is a number, Input's height*width*channels of them per row,
// in HWC order.
type Manifest struct {
	// Classes names the labels in label order (2 to MaxManifestClasses).
	Classes []string `json:"classes"`
	// Files lists every file, in the order their samples are read.
	Files []ManifestFile `json:"files"`
	// Format is "images" or "csv".
	Format string `json:"format"`
	// Input is one sample's shape: height, width, channels.
	Input []int `json:"input"`
	// Label is the CSV label column's header; "" for images.
	Label string `json:"label,omitempty"`
	// Normalize, if not nil, maps each value v to (v - mean) / std.
	Normalize *Normalize `json:"normalize,omitempty"`
	// Version is ManifestVersion.
	Version int `json:"version"`
}

// ManifestFile is one file of a data set.
type ManifestFile struct {
	// Class is an image's class (its folder's name); "" for CSV.
	Class string `json:"class,omitempty"`
	// Path is the file's slash-separated path under the data set's root.
	Path string `json:"path"`
	// SHA256 is the file's SHA-256, 64 lowercase hex digits.
	SHA256 string `json:"sha256"`
	// Split is "train" or "test".
	Split string `json:"split"`
}

// Normalize is a per-channel (one value per channel) or per-feature (one
// per value of a sample) affine normalisation: (v - Mean) / Std.
type Normalize struct {
	Mean []float64 `json:"mean"`
	Std  []float64 `json:"std"`
}

// Manifest limits.
const (
	ManifestVersion    = 1
	MaxManifestBytes   = 64 << 20 // an encoded manifest
	MaxManifestFiles   = 1 << 20
	MaxManifestClasses = 1000
	MaxSampleValues    = 1 << 22 // Input's product
	MaxSampleSide      = 4096
	MaxFileBytes       = 256 << 20 // one data file
)

// The manifest formats.
const (
	FormatImages = "images"
	FormatCSV    = "csv"
)

func manifestErr(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrManifest}, a...)...)
}

// ParseManifest decodes and validates a manifest, refusing unknown
// fields and trailing data; errors wrap ErrManifest and name the field.
func ParseManifest(b []byte) (*Manifest, error) {
	if len(b) > MaxManifestBytes {
		return nil, manifestErr("%d bytes, limit %d", len(b), MaxManifestBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, manifestErr("not a manifest: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, manifestErr("trailing data after the manifest")
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// Encode returns the manifest as JSON (sorted keys, indented).
func (m *Manifest) Encode() ([]byte, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return json.MarshalIndent(m, "", "  ")
}

// Shape returns Input as an array (Validate must have passed).
func (m *Manifest) Shape() [3]int { return [3]int{m.Input[0], m.Input[1], m.Input[2]} }

// Validate checks every field; the error wraps ErrManifest and names the
// first bad one.
func (m *Manifest) Validate() error {
	if m.Version != ManifestVersion {
		return manifestErr("version %d, want %d", m.Version, ManifestVersion)
	}
	if m.Format != FormatImages && m.Format != FormatCSV {
		return manifestErr("format %q: want %q or %q", m.Format, FormatImages, FormatCSV)
	}
	if len(m.Input) != 3 {
		return manifestErr("input %v: want [height, width, channels]", m.Input)
	}
	h, w, c := m.Input[0], m.Input[1], m.Input[2]
	if h < 1 || w < 1 || c < 1 || h > MaxSampleSide || w > MaxSampleSide || c > MaxSampleSide || h*w*c > MaxSampleValues {
		return manifestErr("input %v: want each at least 1, height and width at most %d, at most %d values", m.Input, MaxSampleSide, MaxSampleValues)
	}
	if m.Format == FormatImages && c != 1 && c != 3 {
		return manifestErr("input %v: an image folder is read as greyscale (1 channel) or RGB (3)", m.Input)
	}
	if len(m.Classes) < 2 || len(m.Classes) > MaxManifestClasses {
		return manifestErr("classes: %d names, want 2 to %d", len(m.Classes), MaxManifestClasses)
	}
	seen := make(map[string]int, len(m.Classes))
	for i, n := range m.Classes {
		if err := className(n); err != nil {
			return manifestErr("classes[%d] %q: %v", i, n, err)
		}
		if j, dup := seen[n]; dup {
			return manifestErr("classes[%d] %q: the same as classes[%d]", i, n, j)
		}
		seen[n] = i
	}
	switch {
	case m.Format == FormatCSV && m.Label == "":
		return manifestErr("label: a CSV manifest names its label column")
	case m.Format == FormatImages && m.Label != "":
		return manifestErr("label %q: an image folder's labels are its class folders", m.Label)
	}
	if err := m.Normalize.validate(h*w*c, c); err != nil {
		return err
	}
	if len(m.Files) == 0 || len(m.Files) > MaxManifestFiles {
		return manifestErr("files: %d, want 1 to %d", len(m.Files), MaxManifestFiles)
	}
	paths := make(map[string]int, len(m.Files))
	splits := map[string]bool{}
	for i, f := range m.Files {
		if err := m.validFile(i, f, seen); err != nil {
			return err
		}
		if j, dup := paths[f.Path]; dup {
			return manifestErr("files[%d] %s: listed again as files[%d]", i, f.Path, j)
		}
		paths[f.Path] = i
		splits[f.Split] = true
	}
	if !splits["train"] || !splits["test"] {
		return manifestErr("files: want train and test files, have splits %v", sortedKeys(splits))
	}
	return nil
}

func (m *Manifest) validFile(i int, f ManifestFile, classes map[string]int) error {
	if !fs.ValidPath(f.Path) || f.Path == "." || strings.Contains(f.Path, `\`) {
		return manifestErr("files[%d].path %q: want a relative slash-separated path inside the data set", i, f.Path)
	}
	if len(f.SHA256) != 64 || strings.ToLower(f.SHA256) != f.SHA256 {
		return manifestErr("files[%d].sha256 %q: want 64 lowercase hex digits", i, f.SHA256)
	}
	if _, err := hex.DecodeString(f.SHA256); err != nil {
		return manifestErr("files[%d].sha256 %q: want 64 lowercase hex digits", i, f.SHA256)
	}
	if f.Split != "train" && f.Split != "test" {
		return manifestErr("files[%d].split %q: want train or test", i, f.Split)
	}
	ext := strings.ToLower(path.Ext(f.Path))
	if m.Format == FormatCSV {
		if f.Class != "" {
			return manifestErr("files[%d].class %q: a CSV file's labels are in its %q column", i, f.Class, m.Label)
		}
		if ext != ".csv" {
			return manifestErr("files[%d].path %q: want a .csv file", i, f.Path)
		}
		return nil
	}
	if ext != ".png" && ext != ".jpg" && ext != ".jpeg" {
		return manifestErr("files[%d].path %q: want a .png, .jpg or .jpeg image", i, f.Path)
	}
	if _, ok := classes[f.Class]; !ok {
		return manifestErr("files[%d].class %q: not one of classes", i, f.Class)
	}
	parts := strings.Split(f.Path, "/")
	if len(parts) != 3 || parts[0] != f.Split || parts[1] != f.Class {
		return manifestErr("files[%d].path %q: want %s/%s/<file> (split/class folder/image)", i, f.Path, f.Split, f.Class)
	}
	return nil
}

func (n *Normalize) validate(features, channels int) error {
	if n == nil {
		return nil
	}
	if len(n.Mean) != len(n.Std) || (len(n.Mean) != channels && len(n.Mean) != features) {
		return manifestErr("normalize: %d means and %d stds, want %d (per channel) or %d (per feature) of each", len(n.Mean), len(n.Std), channels, features)
	}
	for i := range n.Mean {
		if math.IsNaN(n.Mean[i]) || math.IsInf(n.Mean[i], 0) {
			return manifestErr("normalize.mean[%d] %v: want a finite number", i, n.Mean[i])
		}
		if !(n.Std[i] > 0) || math.IsInf(n.Std[i], 0) {
			return manifestErr("normalize.std[%d] %v: want a finite number above 0", i, n.Std[i])
		}
	}
	return nil
}

// apply normalises x, samples of the given shape, in place.
func (n *Normalize) apply(x []float32, shape [3]int) {
	if n == nil {
		return
	}
	f, c := shape[0]*shape[1]*shape[2], shape[2]
	for i := range x {
		j := i % f
		if len(n.Mean) == c && len(n.Mean) != f {
			j %= c // HWC: the channel is the fastest index
		}
		x[i] = float32((float64(x[i]) - n.Mean[j]) / n.Std[j])
	}
}

// className: 1 to 64 bytes of printable UTF-8, usable as a folder name.
func className(n string) error {
	switch {
	case n == "" || len(n) > 64:
		return errors.New("want 1 to 64 bytes")
	case !utf8.ValidString(n):
		return errors.New("not UTF-8")
	case n == "." || n == "..":
		return errors.New("not a usable folder name")
	case strings.TrimSpace(n) != n:
		return errors.New("leading or trailing space")
	case strings.ContainsAny(n, `/\`):
		return errors.New("contains a slash")
	}
	for _, r := range n {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("contains the unprintable %U", r)
		}
	}
	return nil
}

func sortedKeys(m map[string]bool) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	return k
}
