//go:build js && wasm

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime/debug"
	"strings"
	"syscall/js"
	"time"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/protocol/task/taskarch"
	"github.com/peerlearn/peerlearn/types/ident"
)

// httpFS is a read-only fs.FS over HTTP: Open(name) fetches base+name
// with the browser's fetch. It lets the browser read a dataset with the
// very loader native peers use (data.Load over os.DirFS), so a tab trains
// on exactly the shard a native peer with its ID would.
type httpFS struct {
	base     string                   // absolute URL ending in "/"
	progress func(name string, n int) // called after each file, may be nil
}

func (h httpFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	b, err := fetchBytes(h.base + name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if h.progress != nil {
		h.progress(name, len(b))
	}
	return &memFile{name: name, r: bytes.NewReader(b), size: int64(len(b))}, nil
}

// errHTTPNotFound wraps fs.ErrNotExist so that data.Load says how to get
// the files.
var errHTTPNotFound = fmt.Errorf("HTTP 404: %w", fs.ErrNotExist)

// fetchBytes GETs url and returns the body. It blocks the calling
// goroutine (never call it from a js.FuncOf callback).
func fetchBytes(url string) ([]byte, error) {
	resp, err := await(js.Global().Call("fetch", url))
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %v", url, err)
	}
	if st := resp.Get("status").Int(); st != 200 {
		if st == 404 {
			return nil, errHTTPNotFound
		}
		return nil, fmt.Errorf("fetch %s: HTTP %d", url, st)
	}
	buf, err := await(resp.Call("arrayBuffer"))
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %v", url, err)
	}
	arr := js.Global().Get("Uint8Array").New(buf)
	b := make([]byte, arr.Get("length").Int())
	js.CopyBytesToGo(b, arr)
	return b, nil
}

type memFile struct {
	name string
	r    *bytes.Reader
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{f}, nil }
func (f *memFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *memFile) Close() error               { return nil }

type memInfo struct{ f *memFile }

func (i memInfo) Name() string       { return i.f.name[strings.LastIndexByte(i.f.name, '/')+1:] }
func (i memInfo) Size() int64        { return i.f.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

var _ io.Reader = (*memFile)(nil)

// dataSet is what a tab trains and evaluates on.
type dataSet struct {
	source  string        // "server" or "own"
	local   *data.Dataset // the training shard
	test    *data.Dataset // the evaluation set (may be nil)
	shard   string        // "K/N of SPEC" for a server shard
	hist    []int         // label counts of local
	dataset string        // the dataset name the set was loaded for
	rotated bool          // a rotated cluster's shard (and test set)
	key     string        // what it was cut for (dataKey): a join with another reloads
	light   bool          // the server's light files (shard and test subset only)
	fetched int64         // bytes of data files fetched (bodies as received)
}

// dataKey names what a tab's data depends on: the dataset, the task's
// partition and the shard asked for (or the peer ID the shard is drawn
// from); a join of a task that differs in any of them cuts its shard anew.
func dataKey(spec task.Spec, id ident.Peer, k, n int) string {
	p := spec.Partition
	return fmt.Sprintf("%s|%s|%d|%d|%d/%d|%v", spec.Dataset, p.Spec, p.Parts, p.Seed, k, n, id)
}

// serverShard loads spec's dataset from base over HTTP and cuts the
// shard a native `peerlearn peer` with this ID would train on: shard
// (k, n) if n > 0, else the task's partition with the shard drawn from
// the ID (cmd/peerlearn's buildLearner does the same).
//
// It first looks for the light files wasm/lightdata writes (the shard
// alone and a test subset, pixel-coded bytes: about a fourteenth of the
// whole set gzipped); where the server has none for this partition it fetches the
// whole dataset and cuts the shard itself.
func serverShard(base string, spec task.Spec, id ident.Peer, k, n int, progress func(string)) (*dataSet, error) {
	if n == 0 {
		n = spec.Partition.Parts
		k = int(id.Seed() % uint64(n))
	}
	ds, err := lightShard(base, spec, k, n, progress)
	if err == nil {
		return ds, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	progress(fmt.Sprintf("no light shard on the server (%v): fetching the whole %s from %s", err, spec.Dataset, base))
	var fetched int64
	fsys := httpFS{base: base, progress: func(name string, size int) {
		fetched += int64(size)
		progress(fmt.Sprintf("fetched %s (%.1f MB)", name, float64(size)/1e6))
	}}
	t0 := time.Now()
	train, test, err := data.Load(fsys, spec.Dataset)
	if err != nil {
		return nil, err
	}
	local, test, desc, rotated, err := taskarch.Shard(train, test, spec, id, k, n)
	if err != nil {
		return nil, err
	}
	progress(fmt.Sprintf("shard %s of %s: %d samples (%v)", desc, spec.Dataset, local.Len(), time.Since(t0).Round(time.Millisecond)))
	// The whole train set (about 190 MB for MNIST) is garbage now that the
	// shard is copied out; without a collection here the heap would grow
	// by everything training allocates before the next one (measured on
	// native peers, which cut their shard the same way: cmd/peerlearn's
	// buildLearner). A wasm heap never shrinks, but it is reused.
	debug.FreeOSMemory()
	return &dataSet{
		source: "server", local: local, test: test, dataset: spec.Dataset, rotated: rotated,
		shard: desc, hist: labelHist(local), fetched: fetched,
	}, nil
}

// lightShard fetches shard k of n of spec's partition and the test subset
// as wasm/lightdata wrote them (engine/data's LightDir); an error wrapping
// fs.ErrNotExist if the server has no manifest for this partition.
func lightShard(base string, spec task.Spec, k, n int, progress func(string)) (*dataSet, error) {
	p := spec.Partition
	dir, err := data.LightDir(spec.Dataset, p.Spec, n, p.Seed)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	mb, err := fetchBytes(base + dir + "/manifest.json")
	if err != nil {
		return nil, err
	}
	var m data.LightManifest
	if err := json.Unmarshal(mb, &m); err != nil {
		return nil, fmt.Errorf("light manifest %s: %w", dir, err)
	}
	if m.Dataset != spec.Dataset || m.Parts != n || m.Seed != p.Seed || len(m.Samples) != n || len(m.Rotated) != n || k < 0 || k >= n {
		return nil, fmt.Errorf("light manifest %s: %s, %d parts, seed %d, %d sizes: not shard %d of %s's %d parts, seed %d",
			dir, m.Dataset, m.Parts, m.Seed, len(m.Samples), k, spec.Dataset, n, p.Seed)
	}
	fetched := int64(len(mb))
	get := func(images, labels string) (*data.Dataset, error) {
		img, err := fetchBytes(base + images)
		if err != nil {
			return nil, err
		}
		lbl, err := fetchBytes(base + labels)
		if err != nil {
			return nil, err
		}
		fetched += int64(len(img) + len(lbl))
		progress(fmt.Sprintf("fetched %s (%.2f MB)", images, float64(len(img)+len(lbl))/1e6))
		// Decoding the pixel code takes a while (about a second for an
		// eighth of MNIST here): the page keeps drawing.
		return data.ReadLight(img, lbl, 10, newYielder(10*time.Millisecond).Maybe)
	}
	fi, fl := data.LightShardFiles(k)
	local, err := get(dir+"/"+fi, dir+"/"+fl)
	if err != nil {
		return nil, fmt.Errorf("light shard %d/%d: %w", k, n, err)
	}
	if local.Len() != m.Samples[k] {
		return nil, fmt.Errorf("light shard %d/%d: %d samples, the manifest says %d", k, n, local.Len(), m.Samples[k])
	}
	local.Name = spec.Dataset + "/train"
	test, err := get(data.LightTestFiles(spec.Dataset))
	if err != nil {
		return nil, fmt.Errorf("light test subset: %w", err)
	}
	test.Name = spec.Dataset + "/test"
	partition := p.Spec
	if m.Rotated[k] {
		test.Rotate180() // the shard's images are rotated already
		partition += " (rotated)"
	}
	progress(fmt.Sprintf("shard %d/%d of %s %s: %d samples, %d test samples, %.2f MB (light, %v)",
		k, n, spec.Dataset, partition, local.Len(), test.Len(), float64(fetched)/1e6, time.Since(t0).Round(time.Millisecond)))
	return &dataSet{
		source: "server", local: local, test: test, dataset: spec.Dataset, rotated: m.Rotated[k],
		shard: fmt.Sprintf("%d/%d of %s", k, n, partition), hist: labelHist(local), light: true, fetched: fetched,
	}, nil
}

// ownData builds the training set from the volunteer's images, decoded by
// the page to grey levels in [0, 1] at the dataset's shape; they never
// leave the tab. The test set comes from the server when it has one for
// the task's dataset; otherwise every fifth image is held out.
func ownData(x []float32, y []int32, shape [3]int, classes int, base, dataset string, progress func(string)) (*dataSet, error) {
	d := &data.Dataset{Name: "own", X: x, Y: y, Shape: shape, Classes: classes}
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("own images: %w", err)
	}
	if d.Len() == 0 {
		return nil, errors.New("own images: none chosen")
	}
	ds := &dataSet{source: "own", local: d, dataset: dataset, shard: fmt.Sprintf("%d own images", d.Len())}
	if base != "" {
		progress("fetching the " + dataset + " test set for evaluation")
		if test, err := loadTest(base, dataset); err == nil && test.Features() == d.Features() {
			ds.test = test
		} else if err != nil {
			progress(fmt.Sprintf("no server test set (%v): holding out every fifth image", err))
		}
	}
	if ds.test == nil && d.Len() >= 5 {
		var tr, te []int
		for i := range d.Len() {
			if i%5 == 4 {
				te = append(te, i)
			} else {
				tr = append(tr, i)
			}
		}
		var err error
		if ds.local, err = d.Subset(tr); err != nil {
			return nil, err
		}
		if ds.test, err = d.Subset(te); err != nil {
			return nil, err
		}
		ds.shard = fmt.Sprintf("%d own images (+%d held out)", len(tr), len(te))
	}
	ds.hist = labelHist(ds.local)
	return ds, nil
}

// loadTest fetches only the test split of a dataset: the light test
// subset where the server has one (wasm/lightdata), else the whole test
// set laid out as scripts/fetch-data.sh lays it out (raw or .gz).
func loadTest(base, dataset string) (*data.Dataset, error) {
	if _, ok := map[string]bool{"mnist": true, "fashion-mnist": true}[dataset]; ok {
		li, ll := data.LightTestFiles(dataset)
		img, err := fetchBytes(base + li)
		if err == nil {
			var lbl []byte
			if lbl, err = fetchBytes(base + ll); err == nil {
				return data.ReadLight(img, lbl, 10, newYielder(10*time.Millisecond).Maybe)
			}
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	dir := map[string]string{"mnist": "mnist/t10k-", "fashion-mnist": "fashion-mnist/t10k-"}[dataset]
	if dir == "" {
		return nil, fmt.Errorf("unknown dataset %q", dataset)
	}
	suffix := ""
	if dataset == "fashion-mnist" {
		suffix = ".gz"
	}
	img, err := fetchBytes(base + dir + "images-idx3-ubyte" + suffix)
	if err != nil {
		return nil, err
	}
	lbl, err := fetchBytes(base + dir + "labels-idx1-ubyte" + suffix)
	if err != nil {
		return nil, err
	}
	return data.ReadIDXClasses(img, lbl, 10)
}

func labelHist(d *data.Dataset) []int {
	h := make([]int, d.Classes)
	for _, y := range d.Y {
		h[y]++
	}
	return h
}
