package data

import (
	"errors"
	"image/color"
	"strings"
	"testing"
)

// A volunteer's own image folder of the task's form: folders named for
// the task's classes (at any depth; a "test" folder above a class folder
// is the test split), resized to the input, normalised as the manifest
// says; other files skipped; a folder that is no class is refused by name.
func TestLoadOwnImages(t *testing.T) {
	fsys := imageFolder(t)
	m, err := BuildManifest(fsys, FormatImages, [3]int{8, 6, 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	m.Normalize = &Normalize{Mean: []float64{0.5}, Std: []float64{0.25}}
	var files []OwnFile
	for p, f := range fsys {
		files = append(files, OwnFile{Path: "picked/" + p, Data: f.Data})
	}
	files = append(files, OwnFile{Path: "picked/notes.txt", Data: []byte("mine")})
	train, test, err := LoadOwn(files, m)
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 4 || test.Len() != 2 || train.Shape != [3]int{8, 6, 1} || train.Classes != 2 {
		t.Fatalf("train %d test %d shape %v classes %d; want 4, 2, 8x6x1, 2", train.Len(), test.Len(), train.Shape, train.Classes)
	}
	for i := range train.Len() {
		v, y := train.X[i*48], train.Y[i]
		// dark 64/255 and light 192/255, then (v - 0.5) / 0.25
		if want := float32((64.0/255 - 0.5) / 0.25); y == 0 && abs32(v-want) > 0.02 || y == 1 && abs32(v-float32((192.0/255-0.5)/0.25)) > 0.02 {
			t.Errorf("sample %d class %d value %v", i, y, v)
		}
	}

	bad := append(files[:0:0], files...)
	bad = append(bad, OwnFile{Path: "picked/train/medium/x.png", Data: solid(t, 4, 4, color.Gray{Y: 128}, "png")})
	if _, _, err := LoadOwn(bad, m); !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), `"medium"`) || !strings.Contains(err.Error(), `"dark", "light"`) {
		t.Errorf("a folder that is no class: %v", err)
	}
	broken := []OwnFile{{Path: "p/dark/a.png", Data: []byte("not an image")}}
	if _, _, err := LoadOwn(broken, m); !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), "p/dark/a.png") {
		t.Errorf("a broken image: %v", err)
	}
	if _, _, err := LoadOwn([]OwnFile{{Path: "p/readme.md", Data: []byte("x")}}, m); !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), "one folder per class") {
		t.Errorf("no images: %v", err)
	}
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// A volunteer's own CSV: read as the manifest's CSV files are (its label
// column, its feature count), every fifth row held out without a test
// file; a CSV of another form is refused with what does not fit.
func TestLoadOwnCSV(t *testing.T) {
	m := &Manifest{Version: 1, Format: FormatCSV, Input: []int{1, 3, 1}, Label: "letter", Classes: []string{"A", "B"},
		Files: []ManifestFile{{Path: "train.csv", Split: "train", SHA256: strings.Repeat("0", 64)}, {Path: "test.csv", Split: "test", SHA256: strings.Repeat("1", 64)}}}
	rows := "letter,a,b,c\n"
	for i := range 10 {
		rows += []string{"A", "B"}[i%2] + ",1,2,3\n"
	}
	train, test, err := LoadOwn([]OwnFile{{Path: "mine.csv", Data: []byte(rows)}}, m)
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 8 || test.Len() != 2 {
		t.Fatalf("train %d test %d, want 8 and 2 (every fifth held out)", train.Len(), test.Len())
	}
	for _, c := range []struct{ csv, says string }{
		{"letter,a,b\nA,1,2\n", "2 feature columns"},
		{"label,a,b,c\nA,1,2,3\n", `no "letter" column`},
		{"letter,a,b,c\nZ,1,2,3\n", "Z"},
	} {
		if _, _, err := LoadOwn([]OwnFile{{Path: "mine.csv", Data: []byte(c.csv)}}, m); !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "mine.csv") {
			t.Errorf("%q: %v, want it to say %q and name the file", c.csv, err, c.says)
		}
	}
	if _, _, err := LoadOwn(make([]OwnFile, MaxOwnFiles+1), m); !errors.Is(err, ErrManifest) {
		t.Errorf("too many files: %v", err)
	}
}
