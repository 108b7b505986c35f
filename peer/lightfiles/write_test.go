package lightfiles

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/peerlearn/peerlearn/engine/data"
)

// TestLightShardsAreThePeersShards: every light shard decodes to exactly
// the shard a peer cuts from the whole train set (data.Load, Partition,
// Client: wasm/data.go's and cmd/peerlearn's path), rotated ones
// included, and the test subset to the test set's first samples; the
// manifest says which shards are rotated and their sizes.
func TestLightShardsAreThePeersShards(t *testing.T) {
	dir := os.Getenv("PEERLEARN_DATA")
	if dir == "" {
		t.Skip("PEERLEARN_DATA unset (run `make data`)")
	}
	if _, err := os.Stat(filepath.Join(dir, "mnist", "train-images-idx3-ubyte")); err != nil {
		t.Skipf("no MNIST under %s", dir)
	}
	const spec, parts, seed = "shards:2+rotate:0.5", 8, 3
	out := t.TempDir()
	n, err := Write(os.DirFS(dir), out, "mnist", spec, parts, seed, false)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2*parts+3 {
		t.Fatalf("%d files written, want %d", n, 2*parts+3)
	}
	if n, err := Write(os.DirFS(dir), out, "mnist", spec, parts, seed, false); err != nil || n != 0 {
		t.Fatalf("a second run wrote %d files (%v), want none without -force", n, err)
	}
	train, test, err := data.Load(os.DirFS(dir), "mnist")
	if err != nil {
		t.Fatal(err)
	}
	shards, err := data.Partition(train, spec, parts, data.NewRand(seed))
	if err != nil {
		t.Fatal(err)
	}
	ld, _ := data.LightDir("mnist", spec, parts, seed)
	var m data.LightManifest
	b, err := os.ReadFile(filepath.Join(out, ld, "manifest.json"))
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatal(err)
	}
	if m.Parts != parts || m.Seed != seed || len(m.Samples) != parts || len(m.Rotated) != parts {
		t.Fatalf("manifest %+v", m)
	}
	rotated := 0
	for k, s := range shards {
		want, err := train.Client(s)
		if err != nil {
			t.Fatal(err)
		}
		fi, fl := data.LightShardFiles(k)
		got := readIDX(t, filepath.Join(out, ld, fi), filepath.Join(out, ld, fl))
		if got.Shape != want.Shape || !slices.Equal(got.X, want.X) || !slices.Equal(got.Y, want.Y) {
			t.Errorf("shard %d: light %d samples, peer's %d: not equal", k, got.Len(), want.Len())
		}
		// The pixel code is what makes the files light: smaller than
		// the same images as gzipped IDX.
		gz, _, err := data.EncodeIDX(want)
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(filepath.Join(out, ld, fi))
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() >= int64(len(gz)) {
			t.Errorf("shard %d: pixel code %d bytes, gzipped IDX %d: want it smaller", k, st.Size(), len(gz))
		}
		if m.Samples[k] != want.Len() || m.Rotated[k] != s.Rotated {
			t.Errorf("shard %d: manifest says %d samples rotated %v, the shard has %d rotated %v", k, m.Samples[k], m.Rotated[k], want.Len(), s.Rotated)
		}
		if s.Rotated {
			rotated++
		}
	}
	if rotated == 0 || rotated == parts {
		t.Fatalf("%d of %d shards rotated: the test must cover both kinds", rotated, parts)
	}
	ti, tl := data.LightTestFiles("mnist")
	got := readIDX(t, filepath.Join(out, ti), filepath.Join(out, tl))
	f := test.Features()
	if got.Len() != data.LightTestSamples || !slices.Equal(got.X, test.X[:data.LightTestSamples*f]) || !slices.Equal(got.Y, test.Y[:data.LightTestSamples]) {
		t.Errorf("test subset: %d samples, not the test set's first %d", got.Len(), data.LightTestSamples)
	}
}

func readIDX(t *testing.T, images, labels string) *data.Dataset {
	t.Helper()
	img, err := os.ReadFile(images)
	if err != nil {
		t.Fatal(err)
	}
	lbl, err := os.ReadFile(labels)
	if err != nil {
		t.Fatal(err)
	}
	d, err := data.ReadLight(img, lbl, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
