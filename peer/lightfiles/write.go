// Package lightfiles writes the light files a browser tab downloads
// instead of a whole dataset (engine/data's light data) to a directory:
// wasm/lightdata's build step, and a demo or a lab that serves tabs a
// task of its own.
package lightfiles

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/protocol/task"
)

// WriteTask is Write for a task's dataset and partition.
func WriteTask(src fs.FS, out string, spec task.Spec, force bool) (int, error) {
	p := spec.Partition
	return Write(src, out, spec.Dataset, p.Spec, p.Parts, p.Seed, force)
}

// Write writes the light files of dataset's partition (spec, parts,
// seed) and its test subset under out, at the paths data.LightDir,
// data.LightShardFiles and data.LightTestFiles name, and returns how
// many it wrote. src holds the whole dataset (data.Load). Files that
// exist are rewritten only with force (they are deterministic); each is
// written through a temporary file and a rename, the manifest last, so
// that a server never serves half a partition.
func Write(src fs.FS, out, dataset, spec string, parts int, seed uint64, force bool) (int, error) {
	dir, err := data.LightDir(dataset, spec, parts, seed)
	if err != nil {
		return 0, err
	}
	ti, tl := data.LightTestFiles(dataset)
	manifest := filepath.Join(out, dir, "manifest.json")
	if !force && exists(manifest) && exists(filepath.Join(out, ti)) && exists(filepath.Join(out, tl)) {
		return 0, nil
	}
	train, test, err := data.Load(src, dataset)
	if err != nil {
		return 0, err
	}
	shards, err := data.Partition(train, spec, parts, data.NewRand(seed))
	if err != nil {
		return 0, err
	}
	canon, err := data.ParseSpec(spec)
	if err != nil {
		return 0, err
	}
	m := data.LightManifest{Dataset: dataset, Partition: canon.String(), Parts: parts, Seed: seed}
	written := 0
	for k, s := range shards {
		local, err := train.Client(s)
		if err != nil {
			return written, err
		}
		img, lbl, err := data.EncodeLight(local)
		if err != nil {
			return written, fmt.Errorf("shard %d: %w", k, err)
		}
		fi, fl := data.LightShardFiles(k)
		if err := writeFile(filepath.Join(out, dir, fi), img); err != nil {
			return written, err
		}
		if err := writeFile(filepath.Join(out, dir, fl), lbl); err != nil {
			return written, err
		}
		written += 2
		m.Samples = append(m.Samples, local.Len())
		m.Rotated = append(m.Rotated, s.Rotated)
	}
	idx := make([]int, min(data.LightTestSamples, test.Len()))
	for i := range idx {
		idx[i] = i
	}
	sub, err := test.Subset(idx)
	if err != nil {
		return written, err
	}
	img, lbl, err := data.EncodeLight(sub)
	if err != nil {
		return written, fmt.Errorf("test subset: %w", err)
	}
	if err := writeFile(filepath.Join(out, ti), img); err != nil {
		return written, err
	}
	if err := writeFile(filepath.Join(out, tl), lbl); err != nil {
		return written, err
	}
	written += 2
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return written, err
	}
	// The manifest last: a tab finds it only when every shard is there.
	if err := writeFile(manifest, b); err != nil {
		return written, err
	}
	return written + 1, nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// writeFile writes b to p through a temporary file and a rename, so that
// the server never serves half a file.
func writeFile(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	if werr == nil {
		werr = f.Chmod(0o644) // CreateTemp makes 0600; the server may run as another user
	}
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), p); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
