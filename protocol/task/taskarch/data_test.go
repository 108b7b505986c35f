package taskarch

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/protocol/task"
)

// csvTask is a CSV data set with its manifest and a spec that names it.
func csvTask(t *testing.T) (fstest.MapFS, task.Spec) {
	fsys := fstest.MapFS{
		"train.csv": {Data: []byte("y,a,b\nno,1,2\nyes,3,4\nno,5,6\n")},
		"test.csv":  {Data: []byte("y,a,b\nyes,7,8\n")},
	}
	m, err := data.BuildManifest(fsys, data.FormatCSV, [3]int{1, 2, 1}, "y")
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	fsys[ManifestFile] = &fstest.MapFile{Data: b}
	sum := sha256.Sum256(b)
	s := task.DefaultSpec()
	s.Name, s.Arch, s.Dataset = "yesno", "", ""
	s.Data = &task.Data{Manifest: hex.EncodeToString(sum[:])}
	s.Model = &task.Model{Input: []int{1, 2, 1}, Classes: []string{"no", "yes"}, Layers: []task.Layer{{Type: "dense", Units: 2}}}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	return fsys, s
}

func TestLoadData(t *testing.T) {
	fsys, s := csvTask(t)
	train, test, err := LoadData(fsys, s)
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 3 || test.Len() != 1 || test.Y[0] != 1 || train.X[5] != 6 {
		t.Fatalf("train %d %v, test %v", train.Len(), train.X, test.Y)
	}
	if _, err := For(s, train.Shape, train.Classes); err != nil {
		t.Fatalf("the model does not fit its data: %v", err)
	}
	for _, c := range []struct {
		name, want string
		edit       func(f fstest.MapFS, s *task.Spec)
	}{
		{"other manifest", "the task's data.manifest_sha256", func(f fstest.MapFS, s *task.Spec) { s.Data.Manifest = strings.Repeat("0", 64) }},
		{"class order", "model.classes [yes no]", func(f fstest.MapFS, s *task.Spec) { s.Model.Classes = []string{"yes", "no"} }},
		{"input", "model.input [2 1 1]", func(f fstest.MapFS, s *task.Spec) { s.Model.Input = []int{2, 1, 1} }},
		{"no manifest", "manifest.json", func(f fstest.MapFS, s *task.Spec) { delete(f, ManifestFile) }},
		{"changed file", "files[0] train.csv", func(f fstest.MapFS, s *task.Spec) {
			f["train.csv"] = &fstest.MapFile{Data: []byte("y,a,b\nno,1,2\n")}
		}},
	} {
		f, sp := csvTask(t)
		c.edit(f, &sp)
		if _, _, err := LoadData(f, sp); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// A spec without Data reads the built-in set (missing here).
	legacy := task.DefaultSpec()
	legacy.Name = "x"
	if _, _, err := LoadData(fstest.MapFS{}, legacy); !errors.Is(err, data.ErrMissing) {
		t.Errorf("legacy without files: %v", err)
	}
	// The engine: the base sees neither the model nor the data.
	b := &baseEngine{}
	if err := (Engine{Base: b}).CheckSpec(s); err != nil {
		t.Fatal(err)
	}
	if b.seen.Data != nil || b.seen.Model != nil || b.seen.Dataset == "" {
		t.Fatalf("base saw %+v", b.seen)
	}
}
