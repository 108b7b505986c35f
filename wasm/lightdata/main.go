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
	"flag"
	"fmt"
	"os"

	"github.com/peerlearn/peerlearn/peer/lightfiles"
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
		n, err := lightfiles.WriteTask(os.DirFS(*dataDir), *out, spec, *force)
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
