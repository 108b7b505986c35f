package taskarch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/protocol/task"
)

// ManifestFile is the manifest's name in a data set's folder.
const ManifestFile = "manifest.json"

// LoadData reads the data set a spec trains on from fsys (a peer's -data
// folder): for a spec with Data, fsys's manifest.json, whose SHA-256 must
// be the spec's data.manifest_sha256 and whose input and class names must
// be the declared model's, and every file it lists (data.LoadManifest
// checks each hash); for a spec without, the built-in IDX set
// (data.Load). Errors say what does not fit.
func LoadData(fsys fs.FS, s task.Spec) (train, test *data.Dataset, err error) {
	if s.Data == nil {
		return data.Load(fsys, s.Dataset)
	}
	if s.Model == nil {
		return nil, nil, fmt.Errorf("%w: data: the spec declares no model", ErrData)
	}
	f, err := fsys.Open(ManifestFile)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %w", data.ErrMissing, ManifestFile, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, data.MaxManifestBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ManifestFile, err)
	}
	m, err := Manifest(s, b)
	if err != nil {
		return nil, nil, err
	}
	return data.LoadManifest(fsys, m)
}

// Manifest parses b as the manifest of s's own data set: its SHA-256 must
// be the spec's data.manifest_sha256 and its input and class names the
// declared model's. Errors say what does not fit.
func Manifest(s task.Spec, b []byte) (*data.Manifest, error) {
	if s.Data == nil || s.Model == nil {
		return nil, fmt.Errorf("%w: the spec names no data set of its own with a declared model", ErrData)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != s.Data.Manifest {
		return nil, fmt.Errorf("%w: %s has sha256 %s, the task's data.manifest_sha256 is %s", ErrData, ManifestFile, got, s.Data.Manifest)
	}
	m, err := data.ParseManifest(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ManifestFile, err)
	}
	if !slices.Equal(m.Input, s.Model.Input) {
		return nil, fmt.Errorf("%w: the manifest's input %v, the task's model.input %v", ErrData, m.Input, s.Model.Input)
	}
	if !slices.Equal(m.Classes, s.Model.Classes) {
		return nil, fmt.Errorf("%w: the manifest's classes %v, the task's model.classes %v", ErrData, m.Classes, s.Model.Classes)
	}
	return m, nil
}
