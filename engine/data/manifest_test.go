package data

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"strings"
	"testing"
	"testing/fstest"
)

// solid encodes a w x h image of one colour as PNG or JPEG.
func solid(t testing.TB, w, h int, c color.Color, format string) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	var err error
	if format == "png" {
		err = png.Encode(&buf, img)
	} else {
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 100})
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// imageFolder is a two-class image folder of solid images of several
// sizes and both formats: class "dark" grey 64, class "light" grey 192.
func imageFolder(t testing.TB) fstest.MapFS {
	dark, light := color.Gray{Y: 64}, color.Gray{Y: 192}
	return fstest.MapFS{
		"train/dark/a.png":   {Data: solid(t, 40, 30, dark, "png")},
		"train/dark/b.jpg":   {Data: solid(t, 7, 9, dark, "jpeg")},
		"train/light/c.png":  {Data: solid(t, 28, 28, light, "png")},
		"train/light/d.jpeg": {Data: solid(t, 100, 50, light, "jpeg")},
		"test/dark/e.png":    {Data: solid(t, 5, 5, dark, "png")},
		"test/light/f.png":   {Data: solid(t, 64, 64, light, "png")},
	}
}

func TestImageFolder(t *testing.T) {
	fsys := imageFolder(t)
	m, err := BuildManifest(fsys, FormatImages, [3]int{8, 6, 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.Classes, ",") != "dark,light" || len(m.Files) != 6 {
		t.Fatalf("classes %v, %d files", m.Classes, len(m.Files))
	}
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	m2, err := ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	train, test, err := LoadManifest(fsys, m2)
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 4 || test.Len() != 2 || train.Shape != [3]int{8, 6, 1} || train.Classes != 2 || len(train.X) != 4*48 {
		t.Fatalf("train %d samples %v, test %d", train.Len(), train.Shape, test.Len())
	}
	// Solid images stay solid when resized; JPEG may move a grey level by 1.
	for i := range train.Len() {
		x, y := train.Sample(i)
		want := []float64{64, 192}[y] / 255
		for _, v := range x {
			if math.Abs(float64(v)-want) > 1.5/255 {
				t.Fatalf("sample %d (class %d): value %v, want %v", i, y, v, want)
			}
		}
	}
	// RGB: a red image reads as (1, 0, 0) in HWC order.
	rgb, err := DecodeImage(solid(t, 3, 3, color.RGBA{R: 255, A: 255}, "png"), [3]int{2, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range rgb {
		if want := float32(map[bool]int{true: 1, false: 0}[i%3 == 0]); v != want {
			t.Fatalf("rgb value %d = %v, want %v", i, v, want)
		}
	}
	// Normalisation per channel.
	m2.Normalize = &Normalize{Mean: []float64{0.5}, Std: []float64{0.25}}
	ntrain, _, err := LoadManifest(fsys, m2)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ntrain.X[0], float32((float64(train.X[0])-0.5)/0.25); got != want {
		t.Fatalf("normalised %v, want %v", got, want)
	}
}

// TestImageFolderRefuses: each bad folder or file is refused with a
// message that says what does not fit.
func TestImageFolderRefuses(t *testing.T) {
	fsys := imageFolder(t)
	m, err := BuildManifest(fsys, FormatImages, [3]int{8, 8, 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, want string
		fsys       func() fstest.MapFS
	}{
		{"unknown class folder", "test/cat: unknown class folder", func() fstest.MapFS {
			f := imageFolder(t)
			f["test/cat/x.png"] = f["test/dark/e.png"]
			return f
		}},
		{"not an image", "train/dark/notes.txt: not a .png", func() fstest.MapFS {
			f := imageFolder(t)
			f["train/dark/notes.txt"] = &fstest.MapFile{Data: []byte("hi")}
			return f
		}},
		{"loose file", "train/readme.md: a file beside the class folders", func() fstest.MapFS {
			f := imageFolder(t)
			f["train/readme.md"] = &fstest.MapFile{Data: []byte("hi")}
			return f
		}},
		{"no test", "test: ", func() fstest.MapFS {
			f := imageFolder(t)
			delete(f, "test/dark/e.png")
			delete(f, "test/light/f.png")
			return f
		}},
	} {
		_, err := BuildManifest(c.fsys(), FormatImages, [3]int{8, 8, 1}, "")
		if !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrManifest with %q", c.name, err, c.want)
		}
	}
	// Files changed after the manifest was made.
	for _, c := range []struct {
		name, want string
		edit       func(f fstest.MapFS)
	}{
		{"changed", "files[0] train/dark/a.png: data: manifest refused: sha256 mismatch", func(f fstest.MapFS) {
			f["train/dark/a.png"] = &fstest.MapFile{Data: solid(t, 40, 30, color.Gray{Y: 65}, "png")}
		}},
		{"missing", "files[5] test/light/f.png: data: dataset file missing", func(f fstest.MapFS) { delete(f, "test/light/f.png") }},
	} {
		f := imageFolder(t)
		c.edit(f)
		if _, _, err := LoadManifest(f, m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// A corrupt image whose manifest hash matches: the decoder refuses it.
	bad := imageFolder(t)
	broken := bad["train/light/c.png"].Data[:50]
	bad["train/light/c.png"] = &fstest.MapFile{Data: broken}
	sum := sha256.Sum256(broken)
	m.Files[2].SHA256 = hex.EncodeToString(sum[:])
	if _, _, err := LoadManifest(bad, m); !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), "train/light/c.png") {
		t.Errorf("corrupt image: %v", err)
	}
	// A PNG announcing a huge size is refused before decoding.
	huge := solid(t, 1, 1, color.Gray{}, "png")
	huge = append([]byte(nil), huge...)
	copy(huge[16:24], []byte{0, 0, 0x40, 0, 0, 0, 0x40, 0}) // IHDR 16384 x 16384
	if _, err := DecodeImage(huge, [3]int{2, 2, 1}); !errors.Is(err, ErrManifest) {
		t.Errorf("huge image: %v", err)
	}
}

const lettersCSV = "letter,a,b,c\nA,1,2,3\nB,4,5,6\nA,7,8.5,-9\n"

func csvFS(train, test string) fstest.MapFS {
	return fstest.MapFS{"train.csv": {Data: []byte(train)}, "test.csv": {Data: []byte(test)}}
}

func TestCSV(t *testing.T) {
	fsys := csvFS(lettersCSV, "letter,a,b,c\nB,0,0,1\n")
	m, err := BuildManifest(fsys, FormatCSV, [3]int{1, 3, 1}, "letter")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.Classes, ",") != "A,B" {
		t.Fatalf("classes %v", m.Classes)
	}
	train, test, err := LoadManifest(fsys, m)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{1, 2, 3, 4, 5, 6, 7, 8.5, -9}
	for i, v := range want {
		if train.X[i] != v {
			t.Fatalf("x[%d] = %v, want %v", i, train.X[i], v)
		}
	}
	if len(train.Y) != 3 || train.Y[0] != 0 || train.Y[1] != 1 || train.Y[2] != 0 || test.Len() != 1 || test.Y[0] != 1 {
		t.Fatalf("labels %v %v", train.Y, test.Y)
	}
	// Per-feature normalisation.
	m.Normalize = &Normalize{Mean: []float64{1, 2, 3}, Std: []float64{1, 2, 4}}
	ntrain, _, err := LoadManifest(fsys, m)
	if err != nil {
		t.Fatal(err)
	}
	if ntrain.X[3] != 3 || ntrain.X[4] != 1.5 || ntrain.X[5] != 0.75 {
		t.Fatalf("normalised row 2: %v", ntrain.X[3:6])
	}
}

func TestCSVRefuses(t *testing.T) {
	m := &Manifest{Version: 1, Format: FormatCSV, Input: []int{1, 3, 1}, Label: "letter", Classes: []string{"A", "B"},
		Files: []ManifestFile{{Path: "train.csv", SHA256: strings.Repeat("0", 64), Split: "train"}, {Path: "test.csv", SHA256: strings.Repeat("0", 64), Split: "test"}}}
	for _, c := range []struct{ csv, want string }{
		{"letter,a,b,c\nA,1,x,3\n", `line 2 column 3 (b): "x" is not a finite number`},
		{"letter,a,b,c\nA,1,2,3\nA,1,NaN,3\n", `line 3 column 3 (b): "NaN" is not a finite number`},
		{"letter,a,b,c\nA,1,2,1e39\n", `"1e39" is not a finite number`},
		{"letter,a,b,c\nA,1,2\n", "line 2: 3 cells, the header has 4"},
		{"letter,a,b,c\nZ,1,2,3\n", `line 2 column 1: label "Z" is not one of the manifest's classes`},
		{"a,b,c,d\nA,1,2,3\n", `header: no "letter" column`},
		{"letter,a,b\nA,1,2\n", "header: 2 feature columns, the manifest's input [1 3 1] has 3 values"},
		{"letter,a,letter,c\n", `label column "letter" appears twice`},
		{"letter,a,b,c\n", "no rows after the header"},
		{"", "empty file"},
		{"letter,a,b,c\nA,\"1,2,3\n", "extraneous or missing"},
	} {
		_, _, err := ReadCSV([]byte(c.csv), m)
		if !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.csv, err, c.want)
		}
	}
}

// TestManifestRefuses: each bad field is refused by name.
func TestManifestRefuses(t *testing.T) {
	good := func() *Manifest {
		m, err := BuildManifest(imageFolder(t), FormatImages, [3]int{8, 8, 1}, "")
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if err := good().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		want string
		edit func(m *Manifest)
	}{
		{"version 2", func(m *Manifest) { m.Version = 2 }},
		{"format \"tsv\"", func(m *Manifest) { m.Format = "tsv" }},
		{"input [8 8]", func(m *Manifest) { m.Input = []int{8, 8} }},
		{"input [8 8 2]: an image folder", func(m *Manifest) { m.Input = []int{8, 8, 2} }},
		{"input [0 8 1]", func(m *Manifest) { m.Input = []int{0, 8, 1} }},
		{"classes: 1 names", func(m *Manifest) { m.Classes = m.Classes[:1] }},
		{"classes[1] \"dark\": the same as classes[0]", func(m *Manifest) { m.Classes[1] = "dark" }},
		{"classes[1] \"..\"", func(m *Manifest) { m.Classes[1] = ".." }},
		{"label \"x\"", func(m *Manifest) { m.Label = "x" }},
		{"normalize: 2 means", func(m *Manifest) { m.Normalize = &Normalize{Mean: []float64{0, 0}, Std: []float64{1, 1}} }},
		{"normalize.std[0] 0", func(m *Manifest) { m.Normalize = &Normalize{Mean: []float64{0}, Std: []float64{0}} }},
		{"files: 0", func(m *Manifest) { m.Files = nil }},
		{"files[0].path \"../x.png\"", func(m *Manifest) { m.Files[0].Path = "../x.png" }},
		{"files[0].path \"/abs/x.png\"", func(m *Manifest) { m.Files[0].Path = "/abs/x.png" }},
		{"files[0].sha256", func(m *Manifest) { m.Files[0].SHA256 = "abc" }},
		{"files[0].split \"val\"", func(m *Manifest) { m.Files[0].Split = "val" }},
		{"files[0].class \"cat\": not one of classes", func(m *Manifest) { m.Files[0].Class = "cat" }},
		{"files[0].path \"train/light/a.png\": want train/dark/<file>", func(m *Manifest) { m.Files[0].Path = "train/light/a.png" }},
		{"files[0].path \"train/dark/a.gif\"", func(m *Manifest) { m.Files[0].Path = "train/dark/a.gif" }},
		{"files[1] train/dark/a.png: listed again as files[0]", func(m *Manifest) { m.Files[1].Path = m.Files[0].Path }},
		{"files: want train and test files", func(m *Manifest) {
			for i := range m.Files {
				m.Files[i].Split = "train"
				m.Files[i].Path = "train/" + strings.SplitN(m.Files[i].Path, "/", 2)[1]
			}
		}},
	} {
		m := good()
		c.edit(m)
		err := m.Validate()
		if !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v", c.want, err)
		}
	}
	if _, err := ParseManifest([]byte(`{"version":1,"extra":1}`)); !errors.Is(err, ErrManifest) {
		t.Errorf("unknown field: %v", err)
	}
}

func TestNormalizeFrom(t *testing.T) {
	d := &Dataset{Shape: [3]int{1, 2, 2}, Classes: 2, Y: []int32{0, 1},
		// HWC: pixel 0 (c0, c1), pixel 1 (c0, c1)
		X: []float32{1, 10, 3, 10, 5, 10, 7, 10}}
	ch, err := NormalizeFrom(d, false)
	if err != nil {
		t.Fatal(err)
	}
	// channel 0: 1 3 5 7, mean 4, std sqrt(5); channel 1 constant: std 1.
	if ch.Mean[0] != 4 || math.Abs(ch.Std[0]-math.Sqrt(5)) > 1e-12 || ch.Mean[1] != 10 || ch.Std[1] != 1 {
		t.Fatalf("per channel %+v", ch)
	}
	pf, err := NormalizeFrom(d, true)
	if err != nil {
		t.Fatal(err)
	}
	// feature 0: 1, 5; feature 2: 3, 7.
	if len(pf.Mean) != 4 || pf.Mean[0] != 3 || pf.Std[0] != 2 || pf.Mean[2] != 5 || pf.Std[2] != 2 {
		t.Fatalf("per feature %+v", pf)
	}
	x := append([]float32(nil), d.X...)
	pf.apply(x, d.Shape)
	if x[0] != -1 || x[4] != 1 || x[1] != 0 {
		t.Fatalf("applied %v", x)
	}
}
