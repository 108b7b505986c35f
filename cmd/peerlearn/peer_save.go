package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/peerlearn/peerlearn/engine/nn"
)

// modelSaver writes a peer's current model to a folder in the engine's
// encoding (.plnn, which `peerlearn export` turns into ONNX or
// safetensors): the file <task name>-<peer ID prefix>.plnn, replaced
// whole each time (written aside, then renamed), so a reader never sees
// half a model and a crash leaves the last good one.
type modelSaver struct {
	dir string
	mu  sync.Mutex
	// arch and name are set when the learning peer is built (on the
	// peer's goroutine), read by the saver's.
	arch nn.Arch
	name string
	set  bool
	// saved is the round of the model last written (-1: none).
	saved int
}

func newModelSaver(dir string) (*modelSaver, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("-save: %w", err)
	}
	return &modelSaver{dir: dir, saved: -1}, nil
}

// describe records the model's architecture and file name.
func (s *modelSaver) describe(arch nn.Arch, taskName, peer string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.arch, s.name, s.set = arch, fmt.Sprintf("%s-%s.plnn", taskName, peer[:min(8, len(peer))]), true
}

// save writes params, the model after round trainings, unless that
// round is already on disk; it returns the file written ("" if none).
func (s *modelSaver) save(params []float32, round int) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.set || params == nil || round == s.saved {
		return "", nil
	}
	sum, err := s.arch.ShapeChecksum()
	if err != nil {
		return "", err
	}
	enc, err := nn.AppendEncoded(nil, s.arch.Name, sum, params)
	if err != nil {
		return "", err
	}
	path, err := writeAside(s.dir, s.name, enc)
	if err != nil {
		return "", err
	}
	s.saved = round
	return path, nil
}

// saveEveryFlag checks -save-every against -save.
func saveEveryFlag(dir string, every time.Duration) error {
	if every <= 0 {
		return fmt.Errorf("%w: -save-every %v: want a positive duration", errUsage, every)
	}
	if dir == "" && every != defaultSaveEvery {
		return fmt.Errorf("%w: -save-every needs -save DIR", errUsage)
	}
	return nil
}

// defaultSaveEvery is -save-every's default.
const defaultSaveEvery = time.Minute

// writeAside writes b to dir/name whole: aside first, then renamed, so a
// reader never sees half a file and a crash leaves the last good one.
func writeAside(dir, name string, b []byte) (string, error) {
	path := filepath.Join(dir, name)
	tmp, err := os.CreateTemp(dir, name+".*")
	if err != nil {
		return "", err
	}
	werr := tmp.Chmod(0o644) // CreateTemp's 0600 would hide the file from its owner's other tools
	if werr == nil {
		_, werr = tmp.Write(b)
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return "", werr
	}
	return path, nil
}
