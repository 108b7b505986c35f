package task

import (
	"encoding/hex"
	"net/url"
	"strings"
)

// Data names a task's own data set ("data"): an image folder or CSV files
// described by a manifest (engine/data.Manifest: every file with its
// SHA-256, the sample shape, the class names, the normalisation), named
// here by the SHA-256 of the manifest file. A peer reads the data set
// from its own copy (peerlearn peer -data DIR, DIR/manifest.json) and
// refuses a manifest with another hash, or whose shape or classes are not
// the declared model's. A spec with Data declares its Model and leaves
// Dataset empty; absent from the encoding when nil, so older specs keep
// their IDs.
type Data struct {
	// Manifest is the SHA-256 of the manifest file, 64 lowercase hex digits.
	Manifest string `json:"manifest_sha256"`
	// URL, if not empty, is where the manifest can be fetched (the files
	// are at the paths it lists, relative to it): an absolute http or
	// https URL of at most MaxURLLen bytes.
	URL string `json:"url,omitempty"`
}

// validDataset checks Dataset against Data: exactly one of them names the
// data. Validate calls it in place of the plain dataset check.
func (s *Spec) validDataset() error {
	if s.Data == nil {
		return oneOf("dataset", s.Dataset, DatasetNames())
	}
	if s.Dataset != "" {
		return invalid("dataset %q: leave it empty when data names the data set's manifest", s.Dataset)
	}
	if s.Model == nil {
		return invalid("data: a task with its own data set declares its model (model: input and classes)")
	}
	d := s.Data
	if len(d.Manifest) != 64 || strings.ToLower(d.Manifest) != d.Manifest {
		return invalid("data.manifest_sha256 %q: want 64 lowercase hex digits", d.Manifest)
	}
	if _, err := hex.DecodeString(d.Manifest); err != nil {
		return invalid("data.manifest_sha256 %q: want 64 lowercase hex digits", d.Manifest)
	}
	if d.URL == "" {
		return nil
	}
	if len(d.URL) > MaxURLLen {
		return invalid("data.url: %d bytes, want at most %d", len(d.URL), MaxURLLen)
	}
	u, err := url.Parse(d.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return invalid("data.url %q: want an absolute http or https URL without credentials", d.URL)
	}
	return nil
}
