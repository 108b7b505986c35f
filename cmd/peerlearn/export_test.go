package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/export"
	"github.com/peerlearn/peerlearn/engine/nn"
)

// exportTools finds the external checks' runtimes: node with
// onnxruntime-node in .tools/onnx (scripts/deps.sh onnx) and Debian's
// python3 with torch (scripts/deps.sh torch). Missing ones skip the test,
// except under CI=true, where they fail it.
func exportTools(t *testing.T) (node, python string) {
	t.Helper()
	missing := func(what, fix string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing: %s installs it", what, fix)
		}
		t.Skipf("%s not installed (%s)", what, fix)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node", "scripts/deps.sh onnx")
	}
	if _, err := os.Stat("../../.tools/onnx/node_modules/onnxruntime-node/package.json"); err != nil {
		missing("onnxruntime-node", "scripts/deps.sh onnx")
	}
	python = "/usr/bin/python3" // Debian's: python3-torch is installed for it
	if err := exec.Command(python, "-c", "import torch").Run(); err != nil {
		missing("python3-torch", "scripts/deps.sh torch")
	}
	return node, python
}

// TestExportExternal trains each built-in architecture (three MLPs, two
// CNNs) for a few steps on MNIST, saves it as .plnn, exports it with
// `peerlearn export` to ONNX and safetensors, and checks both in the real
// runtimes on 1,000 test inputs: onnxruntime-node's logits within 1e-4 of
// the engine's; PyTorch's predictions (the safetensors loaded into the
// equivalent nn.Sequential) equal to the engine's; and torch's state_dict,
// written back, reading as the same parameters (the import direction). An
// odd stack (Dense on a conv map without Flatten, Conv2D and MaxPool2D on
// a flat vector, 3-channel input) checks the rank fixes and the
// HWC-to-NCHW order on random inputs, and a pooled one AvgPool2D,
// GlobalAvgPool and Dropout (the identity once exported). Ends with
// `export onnx_maxdiff=D torch_agree=A` (the worst over the models).
func TestExportExternal(t *testing.T) {
	node, python := exportTools(t)
	dir := os.Getenv("PEERLEARN_DATA")
	if dir == "" {
		t.Skip("PEERLEARN_DATA not set (make data)")
	}
	train, test, err := data.Load(os.DirFS(dir), "mnist")
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	tmp := t.TempDir()
	worstDiff, worstAgree := 0.0, 1.0
	for _, arch := range nn.ArchNames() {
		a, err := nn.NewArch(arch)
		if err != nil {
			t.Fatal(err)
		}
		m := trainFewSteps(t, a, train, 150)
		acc, err := m.Evaluate(test.X[:n*784], test.Y[:n], 100, nil)
		if err != nil {
			t.Fatal(err)
		}
		if acc.Accuracy < 0.7 { // untrained: 0.1; a few steps give far more
			t.Fatalf("%s: accuracy %.3f after 150 steps: not trained", arch, acc.Accuracy)
		}
		plnn := filepath.Join(tmp, arch+".plnn")
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(plnn, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		for _, format := range []string{"onnx", "safetensors"} {
			files[format] = filepath.Join(tmp, arch+"."+format)
			var out bytes.Buffer
			if rc := run(context.Background(), []string{"export", "-model", plnn, "-format", format, "-o", files[format]}, &out, t.Logf); rc != 0 {
				t.Fatalf("peerlearn export -format %s: exit %d", format, rc)
			}
			if !strings.HasPrefix(out.String(), "export format="+format+" arch="+arch+" ") {
				t.Fatalf("peerlearn export printed %q", out.String())
			}
		}
		d, agree := checkExternal(t, node, python, a, m, test.X[:n*784], files["onnx"], files["safetensors"])
		t.Logf("%s: engine accuracy %.4f on %d test inputs, onnx max |diff| %.3g, torch agreement %.4f", arch, acc.Accuracy, n, d, agree)
		worstDiff, worstAgree = max(worstDiff, d), min(worstAgree, agree)
	}

	// The odd stack and one with the pooling and dropout layers, random
	// weights and inputs, through the package API.
	for i, a := range []nn.Arch{
		{Name: "odd", Input: [3]int{9, 7, 3}, Classes: 5, Layers: []nn.LayerSpec{
			nn.Conv2D(4, 3, 1), nn.Tanh(), nn.MaxPool2D(2), nn.Dense(12), nn.ReLU(), nn.Conv2D(6, 1, 0), nn.MaxPool2D(1), nn.Conv2D(5, 1, 0),
		}},
		{Name: "pooled", Input: [3]int{10, 8, 3}, Classes: 4, Layers: []nn.LayerSpec{
			nn.Conv2D(5, 3, 1), nn.ReLU(), nn.AvgPool2D(2), nn.Dropout(0.25), nn.Conv2D(6, 3, 1), nn.Tanh(),
			nn.GlobalAvgPool(), nn.Dropout(0.5), nn.Dense(8), nn.AvgPool2D(1), nn.GlobalAvgPool(), nn.Dense(4),
		}},
	} {
		m, err := nn.NewModel(a)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(7, uint64(7+i)))
		if err := m.Init(rng, nn.GlorotUniform, nil); err != nil {
			t.Fatal(err)
		}
		size := a.Input[0] * a.Input[1] * a.Input[2]
		x := make([]float32, 200*size)
		for i := range x {
			x[i] = rng.Float32()*2 - 1
		}
		files := map[string]string{}
		for format, enc := range exportFormats {
			b, err := enc(a, m.Params())
			if err != nil {
				t.Fatal(err)
			}
			files[format] = filepath.Join(tmp, a.Name+"."+format)
			if err := os.WriteFile(files[format], b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		d, agree := checkExternal(t, node, python, a, m, x, files["onnx"], files["safetensors"])
		t.Logf("%s stack %v: onnx max |diff| %.3g, torch agreement %.4f", a.Name, a, d, agree)
		worstDiff, worstAgree = max(worstDiff, d), min(worstAgree, agree)
	}
	fmt.Printf("export onnx_maxdiff=%.2g torch_agree=%g\n", worstDiff, worstAgree)
}

// trainFewSteps trains a seeded model for steps SGD steps of 64 samples.
func trainFewSteps(t *testing.T, a nn.Arch, train *data.Dataset, steps int) *nn.Model {
	t.Helper()
	m, err := nn.NewModel(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Init(rand.New(rand.NewPCG(1, 1)), nn.HeNormal, nil); err != nil {
		t.Fatal(err)
	}
	opt, err := nn.NewSGD(0.05, 0.9, 0)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := nn.NewTrainer(m, opt)
	if err != nil {
		t.Fatal(err)
	}
	batches, err := data.NewBatches(train, 64, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	f := train.Features()
	x, y := make([]float32, 64*f), make([]int32, 64)
	for range steps {
		k, err := batches.Next(x, y)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.TrainBatch(x[:k*f], y[:k]); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// checkExternal runs the ONNX file in onnxruntime-node and the
// safetensors file in torch on the samples x (HWC, as the engine reads
// them; the tools get NCHW) and compares with the engine's logits: it
// fails the test on an ONNX logit more than 1e-4 away or a torch
// prediction that differs, and returns the ONNX max |diff| and the
// fraction of torch predictions equal to the engine's.
func checkExternal(t *testing.T, node, python string, a nn.Arch, m *nn.Model, x []float32, onnxFile, stFile string) (float64, float64) {
	t.Helper()
	feat := a.Input[0] * a.Input[1] * a.Input[2]
	n := len(x) / feat
	want := make([]float32, 0, n*a.Classes)
	for lo := 0; lo < n; lo += 100 { // batches of 100 keep the CNN's buffers small
		hi := min(lo+100, n)
		logits, err := m.Forward(x[lo*feat:hi*feat], hi-lo)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, logits...)
	}
	nchw, err := export.NCHW(a, x)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "inputs.f32")
	writeF32(t, in, nchw)

	onnxOut := filepath.Join(dir, "onnx.f32")
	c, h, w := a.Input[2], a.Input[0], a.Input[1]
	runTool(t, node, "../../scripts/export-check-onnx.js", onnxFile, in, fmt.Sprint(n), fmt.Sprint(c), fmt.Sprint(h), fmt.Sprint(w), onnxOut)
	got := readF32(t, onnxOut, len(want))
	maxDiff := 0.0
	for i := range want {
		maxDiff = max(maxDiff, math.Abs(float64(got[i]-want[i])))
	}
	if maxDiff > 1e-4 {
		t.Errorf("%s: onnxruntime logits differ from the engine's by up to %.3g, want <= 1e-4", a.Name, maxDiff)
	}

	torchOut := filepath.Join(dir, "torch.f32")
	state := filepath.Join(dir, "torch-state.safetensors")
	runTool(t, python, "../../scripts/export_check_torch.py", stFile, in, fmt.Sprint(n), torchOut, state)
	// The import direction: torch's own state_dict, written in another
	// order without metadata, reads back as the engine's parameters.
	sb, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := export.ReadSafetensors(sb, a); err != nil || !slices.Equal(back, m.Params()) {
		t.Errorf("%s: torch's state_dict does not read back as the parameters: %v", a.Name, err)
	}
	tl := readF32(t, torchOut, len(want))
	same, torchDiff := 0, 0.0
	for i := range n {
		row := func(z []float32) []float32 { return z[i*a.Classes : (i+1)*a.Classes] }
		if argmaxF32(row(tl)) == argmaxF32(row(want)) {
			same++
		}
		for j := range a.Classes {
			torchDiff = max(torchDiff, math.Abs(float64(row(tl)[j]-row(want)[j])))
		}
	}
	if same != n {
		t.Errorf("%s: torch predicts like the engine on %d of %d inputs (max logit |diff| %.3g)", a.Name, same, n, torchDiff)
	}
	t.Logf("%s: torch max logit |diff| %.3g", a.Name, torchDiff)
	return maxDiff, float64(same) / float64(n)
}

func runTool(t *testing.T, bin string, args ...string) {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out)
	}
	t.Logf("%s", bytes.TrimSpace(out))
}

func writeF32(t *testing.T, path string, v []float32) {
	t.Helper()
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readF32(t *testing.T, path string, n int) []float32 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 4*n {
		t.Fatalf("%s: %d bytes, want %d float32", path, len(b), n)
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

func argmaxF32(z []float32) int {
	best := 0
	for j, v := range z {
		if v > z[best] {
			best = j
		}
	}
	return best
}
