package main

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/protocol/task/taskarch"
)

// fashionClasses names Fashion-MNIST's labels as folder names.
var fashionClasses = []string{"t-shirt", "trouser", "pullover", "dress", "coat", "sandal", "shirt", "sneaker", "bag", "ankle-boot"}

// writePNGFolder writes the first n samples of d as 28x28 greyscale PNGs
// under dir/split/<class>/.
func writePNGFolder(t *testing.T, dir, split string, d *data.Dataset, n int) {
	t.Helper()
	for i := range n {
		x, y := d.Sample(i)
		img := image.NewGray(image.Rect(0, 0, 28, 28))
		for j, v := range x {
			img.Pix[j] = uint8(math.Round(float64(v) * 255))
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, split, fashionClasses[y], fmt.Sprintf("%05d.png", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFashionFolderDeclaredModel is the image-folder example: Fashion-MNIST
// written out as PNG folders (6,000 train, 1,000 test images, one folder
// per class), read back through a manifest at 28x28 (each pixel as the
// IDX file has it) and at 20x20 (bilinear), and a declared model (average
// pooling, dropout) on the 20x20 images trained centrally and by 4
// simulated peers with the same samples trained (as
// TestLettersDeclaredMLP: 40 epochs, 40 rounds; at 20 the swarm was 3.3
// points behind). Ends with `fashion-folder image_acc=A image_central=C`.
func TestFashionFolderDeclaredModel(t *testing.T) {
	root := os.Getenv("PEERLEARN_DATA")
	if root == "" {
		t.Skip("PEERLEARN_DATA not set (make data)")
	}
	train, test, err := data.Load(os.DirFS(root), "fashion-mnist")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const nTrain, nTest = 6000, 1000
	writePNGFolder(t, dir, "train", train, nTrain)
	writePNGFolder(t, dir, "test", test, nTest)
	fsys := os.DirFS(dir)

	// At the IDX size the folder reads back as the IDX pixels.
	m28, err := data.BuildManifest(fsys, data.FormatImages, [3]int{28, 28, 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	ftrain, _, err := data.LoadManifest(fsys, m28)
	if err != nil {
		t.Fatal(err)
	}
	if ftrain.Len() != nTrain {
		t.Fatalf("%d train images read", ftrain.Len())
	}
	sorted := m28.Classes // folders sorted by name: labels are renumbered
	var worst float64
	// Files are read in manifest order; each names its IDX index.
	for i, f := range m28.Files[:50] {
		var idx int
		if _, err := fmt.Sscanf(filepath.Base(f.Path), "%05d.png", &idx); err != nil {
			t.Fatal(err)
		}
		want, wy := train.Sample(idx)
		got, gy := ftrain.Sample(i)
		if sorted[gy] != fashionClasses[wy] {
			t.Fatalf("%s: class %s, IDX label %s", f.Path, sorted[gy], fashionClasses[wy])
		}
		for j := range want {
			worst = max(worst, math.Abs(float64(got[j]-want[j])))
		}
	}
	if worst > 0.5/255 {
		t.Fatalf("28x28 images differ from the IDX pixels by %v", worst)
	}

	m, err := data.BuildManifest(fsys, data.FormatImages, [3]int{20, 20, 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	ftrain, ftest, err := data.LoadManifest(fsys, m)
	if err != nil {
		t.Fatal(err)
	}
	s := task.DefaultSpec()
	s.Name, s.Arch = "fashion-folder", ""
	s.Model = fashionFolderModel(m.Classes)
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := taskarch.For(s, ftrain.Shape, ftrain.Classes)
	if err != nil {
		t.Fatal(err)
	}
	central, swarm := centralVsSwarm(t, a, ftrain, ftest)
	t.Logf("%v: central %.4f, %d peers %.4f (min %.4f), %d epochs/rounds", a, central.Accuracy, declaredPeers, swarm.Mean, swarm.Min, declaredRounds)
	if central.Accuracy < 0.75 || swarm.Mean < 0.75 {
		t.Fatalf("central %.4f, swarm %.4f: the model did not learn", central.Accuracy, swarm.Mean)
	}
	if gap := math.Abs(central.Accuracy - swarm.Mean); gap > 0.02 {
		t.Errorf("swarm %.4f is %.2f points from central %.4f (goal: within 2)", swarm.Mean, 100*gap, central.Accuracy)
	}
	fmt.Printf("fashion-folder image_acc=%.4f image_central=%.4f\n", swarm.Mean, central.Accuracy)
}

// fashionFolderModel is the image-folder example's declared model on
// 20x20 greyscale images (bench-owner trains it on real peers).
func fashionFolderModel(classes []string) *task.Model {
	return &task.Model{Input: []int{20, 20, 1}, Classes: classes, Layers: []task.Layer{
		{Type: "avgpool2d", Kernel: 2}, {Type: "flatten"}, {Type: "dense", Units: 128}, {Type: "relu"},
		{Type: "dropout", Rate: 0.1}, {Type: "dense", Units: 10},
	}}
}
