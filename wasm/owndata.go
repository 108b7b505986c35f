//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"testing/fstest"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/protocol/task/taskarch"
	"github.com/peerlearn/peerlearn/types/ident"
)

// A task with its own data set (spec.Data: an image folder or CSV files
// described by a manifest) trains in a tab on files the volunteer picked,
// read in the tab and never uploaded (issue #24 item 2). Either the
// task's data folder itself, manifest.json included: read exactly as a
// native peer reads -data (taskarch.LoadData: the manifest's hash is the
// spec's, every file's hash the manifest's) and cut into the peer's shard
// as a native peer cuts it; or the volunteer's own files of the task's
// form (a folder per class, or a CSV with the label column), checked
// against the manifest the task publishes at data.url (data.LoadOwn).
// Either way the message says what does not fit.

// ownTaskData loads spec's data set from files, shard k of n (n 0: the
// task's partition, the shard drawn from id) when they are the task's.
func ownTaskData(spec task.Spec, id ident.Peer, files []data.OwnFile, k, n int, progress func(string)) (*dataSet, error) {
	files = underPicked(files)
	fsys := fstest.MapFS{}
	for _, f := range files {
		fsys[f.Path] = &fstest.MapFile{Data: f.Data}
	}
	if _, ok := fsys[taskarch.ManifestFile]; ok {
		train, test, err := taskarch.LoadData(fsys, spec)
		if err != nil {
			return nil, err
		}
		local, test, desc, rotated, err := taskarch.Shard(train, test, spec, id, k, n)
		if err != nil {
			return nil, err
		}
		progress(fmt.Sprintf("the task's data folder (%d files, every one as its manifest says): shard %s, %d samples", len(files), desc, local.Len()))
		return &dataSet{source: "own", local: local, test: test, dataset: spec.Name, rotated: rotated,
			shard: desc, hist: labelHist(local)}, nil
	}
	if spec.Data.URL == "" {
		return nil, errors.New("this task does not publish its manifest (data.url): pick the task's data folder, with its " + taskarch.ManifestFile)
	}
	progress("fetching the task's manifest from " + spec.Data.URL)
	b, err := fetchBytes(spec.Data.URL)
	if err != nil {
		return nil, err
	}
	m, err := taskarch.Manifest(spec, b)
	if err != nil {
		return nil, err
	}
	train, test, err := data.LoadOwn(files, m)
	if err != nil {
		return nil, fmt.Errorf("your files do not fit the task %s (%s, input %v, classes %s): %w", spec.Name, m.Format, m.Input, strings.Join(m.Classes, ","), err)
	}
	progress(fmt.Sprintf("your own files: %d samples to train on, %d to test", train.Len(), test.Len()))
	return &dataSet{source: "own", local: train, test: test, dataset: spec.Name,
		shard: fmt.Sprintf("%d own samples (+%d held out)", train.Len(), test.Len()), hist: labelHist(train)}, nil
}

// underPicked strips the picked folder's name, which browsers put first
// in every path of a folder pick ("letters/train.csv"), so that paths are
// relative to the folder as a manifest's are.
func underPicked(files []data.OwnFile) []data.OwnFile {
	top := ""
	for i, f := range files {
		first, _, ok := strings.Cut(path.Clean(f.Path), "/")
		if !ok || (i > 0 && first != top) {
			return files
		}
		top = first
	}
	out := make([]data.OwnFile, len(files))
	for i, f := range files {
		out[i] = data.OwnFile{Path: strings.TrimPrefix(path.Clean(f.Path), top+"/"), Data: f.Data}
	}
	return out
}
