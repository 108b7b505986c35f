// Command lightdata writes the light data a browser tab downloads
// instead of a whole dataset (issue #25, "light tabs"): for each task
// given, every shard of its partition as light files (engine/data's
// EncodeLight: the images as a pixel code, the labels as gzipped IDX)
// and a manifest, and the dataset's test subset (its first
// data.LightTestSamples samples), under the output directory at the
// paths engine/data's LightDir, LightShardFiles and LightTestFiles name.
// The shards are cut by the code every peer cuts its own with
// (data.Partition, then Dataset.Client), so a tab trains on exactly what
// it would have cut from the whole set.
//
//	go run ./wasm/lightdata -data .data -task a.json -task b.json
//	go run ./wasm/lightdata -data .data -parts 8   # make demo's partition
//
// Without -task or -parts it writes the signalling server's default task
// (mnist-fedlay). The signalling server serves the files as they are,
// with the rest of the data directory, at /wasm/data/; a tab falls back
// to the whole dataset where they are missing. Files that exist are
// rewritten only with -force (they are deterministic).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/protocol/task"
)

func main() {
	dataDir := flag.String("data", envOr("PEERLEARN_DATA", ".data"), "the data directory `make data` fills (read)")
	out := flag.String("out", "", "where to write the light files (default: -data)")
	force := flag.Bool("force", false, "rewrite files that exist")
	var tasks []string
	flag.Func("task", "a task spec file (JSON); repeatable (default: the server's default task, mnist-fedlay)", func(s string) error {
		tasks = append(tasks, s)
		return nil
	})
	dataset := flag.String("dataset", "mnist", "with -parts: the dataset")
	partition := flag.String("partition", "dirichlet:0.5", "with -parts: the partition spec")
	seed := flag.Uint64("seed", 1, "with -parts: the partition seed")
	parts := flag.Int("parts", 0, "write this partition too (-dataset, -partition, -seed), with this many parts: `make demo`'s is 8 parts of dirichlet:0.5, seed 1")
	flag.Parse()
	if *out == "" {
		*out = *dataDir
	}
	var specs []task.Spec
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			fatal(err)
		}
		spec, err := task.Parse(b)
		if err != nil {
			fatal(fmt.Errorf("%s: %w", f, err))
		}
		specs = append(specs, spec)
	}
	if *parts > 0 {
		spec := task.DefaultSpec()
		spec.Dataset, spec.Partition = *dataset, task.Partition{Parts: *parts, Seed: *seed, Spec: *partition}
		specs = append(specs, spec)
	}
	if len(specs) == 0 {
		specs = append(specs, task.DefaultSpec())
	}
	for _, spec := range specs {
		p := spec.Partition
		n, err := write(os.DirFS(*dataDir), *out, spec.Dataset, p.Spec, p.Parts, p.Seed, *force)
		if err != nil {
			fatal(err)
		}
		fmt.Printf("lightdata: %s %s parts=%d seed=%d: %d files written under %s\n", spec.Dataset, p.Spec, p.Parts, p.Seed, n, *out)
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "lightdata:", err)
	os.Exit(1)
}

// write writes the light files of dataset's partition (spec, parts,
// seed) and its test subset under out and returns how many it wrote.
func write(src fs.FS, out, dataset, spec string, parts int, seed uint64, force bool) (int, error) {
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
