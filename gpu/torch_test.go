//go:build torch

package gpu

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
)

// The tests run libtorch on one thread, as a companion benchmark would,
// and because the pure-Go engine they compare with is deterministic.
var setThreads = sync.OnceValue(func() error {
	b, err := New(mustArch("mlp"), mustSGD(0.1, 0, 0), Config{Threads: 1})
	if err != nil {
		return err
	}
	return b.Close()
})

func mustArch(name string) nn.Arch {
	a, err := nn.NewArch(name)
	if err != nil {
		panic(err)
	}
	return a
}

func mustSGD(lr, mom, wd float32) *nn.SGD {
	o, err := nn.NewSGD(lr, mom, wd)
	if err != nil {
		panic(err)
	}
	return o
}

// mnist loads MNIST from PEERLEARN_DATA, or returns nil when it is unset.
// Set but unreadable is a failure.
var mnist = sync.OnceValues(func() (*[2]*data.Dataset, error) {
	dir := os.Getenv("PEERLEARN_DATA")
	if dir == "" {
		return nil, nil
	}
	train, test, err := data.Load(os.DirFS(dir), "mnist")
	if err != nil {
		return nil, fmt.Errorf("PEERLEARN_DATA=%s: %w", dir, err)
	}
	return &[2]*data.Dataset{train, test}, nil
})

// synthetic returns n samples of a learnable task for arch: each class has
// a random template; a sample is its template plus uniform noise in [0, 1].
func synthetic(seed uint64, a nn.Arch, n int) ([]float32, []int32) {
	return noisy(seed, a, n, 0.8)
}

// noisy is synthetic with a chosen noise amplitude.
func noisy(seed uint64, a nn.Arch, n int, noise float32) ([]float32, []int32) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	tpl := rand.New(rand.NewPCG(7, 0x7e3))
	f := a.Input[0] * a.Input[1] * a.Input[2]
	templates := make([]float32, a.Classes*f)
	for i := range templates {
		templates[i] = tpl.Float32()
	}
	x := make([]float32, n*f)
	y := make([]int32, n)
	for i := range n {
		c := rng.IntN(a.Classes)
		y[i] = int32(c)
		for j := range f {
			x[i*f+j] = min(max(templates[c*f+j]+noise*(rng.Float32()-0.5), 0), 1)
		}
	}
	return x, y
}

// samples returns n MNIST training samples from offset off when
// PEERLEARN_DATA is set, else n synthetic ones.
func samples(t *testing.T, a nn.Arch, seed uint64, off, n int) ([]float32, []int32) {
	t.Helper()
	ds, err := mnist()
	if err != nil {
		t.Fatal(err)
	}
	if ds == nil || a.Input != nn.MNISTInput || a.Classes != 10 {
		return synthetic(seed, a, n)
	}
	tr := ds[0]
	f := tr.Features()
	return tr.X[off*f : (off+n)*f], tr.Y[off : off+n]
}

// pair returns a pure-Go trainer and a torch backend with the same He
// initial parameters.
func pair(t *testing.T, a nn.Arch, newOpt func() nn.Optimizer, seed uint64) (*nn.Trainer, *Backend) {
	t.Helper()
	if err := setThreads(); err != nil {
		t.Fatal(err)
	}
	m, err := nn.NewModel(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Init(rand.New(rand.NewPCG(seed, 1)), nn.HeNormal, nil); err != nil {
		t.Fatal(err)
	}
	tr, err := nn.NewTrainer(m, newOpt())
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(a, newOpt(), Config{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if err := b.SetParams(m.Params()); err != nil {
		t.Fatal(err)
	}
	return tr, b
}

func params(t *testing.T, b nn.Backend) []float32 {
	t.Helper()
	p := make([]float32, b.NumParams())
	if err := b.Params(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// maxDiff returns the largest |a[i]-b[i]| and its index.
func maxDiff(a, b []float32) (float64, int) {
	d, at := 0.0, 0
	for i := range a {
		if x := math.Abs(float64(a[i]) - float64(b[i])); x > d || math.IsNaN(x) {
			d, at = x, i
		}
	}
	return d, at
}

var optimizers = []struct {
	name string
	new  func() nn.Optimizer
}{
	{"sgd", func() nn.Optimizer { return mustSGD(0.05, 0.9, 1e-4) }},
	{"sgd-nesterov", func() nn.Optimizer { o := mustSGD(0.05, 0.9, 0); o.Nesterov = true; return o }},
	{"adam", func() nn.Optimizer { o, _ := nn.NewAdam(1e-3); o.WeightDecay = 1e-4; return o }},
	{"adamw", func() nn.Optimizer { o, _ := nn.NewAdamW(1e-3, 0.01); return o }},
}

// TestMatchesPureGo trains mlp and small-cnn for 5 steps of 64 samples on
// both engines from the same parameters and compares the losses (1e-4),
// the parameters (1e-5), evaluation and the Hessian diagonal.
func TestMatchesPureGo(t *testing.T) {
	for _, arch := range []string{"mlp", "small-cnn"} {
		for _, opt := range optimizers {
			t.Run(arch+"/"+opt.name, func(t *testing.T) {
				a := mustArch(arch)
				tr, b := pair(t, a, opt.new, 3)
				const batch, steps = 64, 5
				x, y := samples(t, a, 11, 0, batch*steps)
				f := b.inSize
				for s := range steps {
					bx, by := x[s*batch*f:(s+1)*batch*f], y[s*batch:(s+1)*batch]
					lg, err := tr.TrainBatch(bx, by)
					if err != nil {
						t.Fatal(err)
					}
					lt, err := b.TrainBatch(bx, by)
					if err != nil {
						t.Fatal(err)
					}
					if d := math.Abs(float64(lg - lt)); d > 1e-4 {
						t.Errorf("step %d: loss go %.7f torch %.7f (diff %.2g)", s, lg, lt, d)
					}
				}
				pg, pt := params(t, tr), params(t, b)
				d, at := maxDiff(pg, pt)
				t.Logf("after %d steps: max |param diff| %.2g (at %d)", steps, d, at)
				if d > 1e-5 {
					t.Errorf("parameters differ by %.3g at %d (go %v torch %v)", d, at, pg[at], pt[at])
				}
				if opt.name == "sgd" {
					compareEvalHessian(t, tr, b, a)
				}
			})
		}
	}
}

// compareEvalHessian checks Evaluate and HessianDiag on both engines at
// the same parameters (the Go trainer's).
func compareEvalHessian(t *testing.T, tr *nn.Trainer, b *Backend, a nn.Arch) {
	t.Helper()
	if err := b.SetParams(tr.Model().Params()); err != nil {
		t.Fatal(err)
	}
	x, y := samples(t, a, 12, 1000, 600) // more than one eval batch on each side
	mg, err := tr.Evaluate(x, y)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	b.SetYield(func() { calls++ })
	mt, err := b.Evaluate(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 { // 600 samples in batches of 256: yields before batches 2 and 3
		t.Errorf("yield called %d times, want 2", calls)
	}
	if math.Abs(mg.Loss-mt.Loss) > 1e-4 || mg.Samples != mt.Samples {
		t.Errorf("evaluate: go loss %.6f (%d) torch %.6f (%d)", mg.Loss, mg.Samples, mt.Loss, mt.Samples)
	}
	for c := range mg.Total {
		if mg.Total[c] != mt.Total[c] || mg.Correct[c] != mt.Correct[c] {
			t.Errorf("class %d: go %d/%d torch %d/%d correct", c, mg.Correct[c], mg.Total[c], mt.Correct[c], mt.Total[c])
		}
	}
	t.Logf("evaluate: loss go %.6f torch %.6f, accuracy go %.4f torch %.4f", mg.Loss, mt.Loss, mg.Accuracy, mt.Accuracy)

	hg := make([]float32, b.NumParams())
	ht := make([]float32, b.NumParams())
	if err := tr.HessianDiag(x, y, hg); err != nil {
		t.Fatal(err)
	}
	if err := b.HessianDiag(x, y, ht); err != nil {
		t.Fatal(err)
	}
	// Entries span many orders of magnitude: compare each relative to the
	// largest entry of its tensor.
	layout, _ := a.Layout()
	worst := 0.0
	for _, ten := range layout {
		g, h := hg[ten.Offset:ten.Offset+ten.Size()], ht[ten.Offset:ten.Offset+ten.Size()]
		scale := 0.0
		for _, v := range g {
			scale = max(scale, float64(v))
		}
		d, at := maxDiff(g, h)
		worst = max(worst, d/scale)
		if scale == 0 || d > 1e-5*scale {
			t.Errorf("Hessian %s: max diff %.3g at %d (go %v torch %v), tensor max %.3g", ten.Name, d, at, g[at], h[at], scale)
		}
	}
	t.Logf("Hessian diagonal: largest difference %.2g of its tensor's largest entry", worst)
}

// TestEveryLayout takes one step of every built-in architecture and of
// stacks exercising the rest of the layer set (Tanh, strided convs,
// several input channels in HWC order, Dense straight after a conv,
// pooling windows of 3, average and global average pooling, also on a
// flat vector) on both engines.
func TestEveryLayout(t *testing.T) {
	archs := []nn.Arch{}
	for _, name := range nn.ArchNames() {
		archs = append(archs, mustArch(name))
	}
	archs = append(archs,
		nn.Arch{Name: "rgb-strided", Input: [3]int{11, 9, 3}, Classes: 4, Layers: []nn.LayerSpec{
			{Kind: nn.KindConv2D, Units: 5, Kernel: 3, Stride: 2, Pad: 1}, nn.Tanh(),
			nn.Conv2D(6, 2, 0), nn.MaxPool2D(3), nn.Dense(7), nn.Tanh(), nn.Dense(4),
		}},
		nn.Arch{Name: "conv-after-flatten", Input: [3]int{6, 6, 2}, Classes: 3, Layers: []nn.LayerSpec{
			nn.Flatten(), nn.Conv2D(4, 1, 0), nn.ReLU(), nn.Dense(3),
		}},
		nn.Arch{Name: "avgpool", Input: [3]int{10, 9, 3}, Classes: 4, Layers: []nn.LayerSpec{
			nn.Conv2D(5, 3, 1), nn.ReLU(), nn.AvgPool2D(2), nn.Conv2D(6, 2, 0), nn.Tanh(), nn.AvgPool2D(3),
			nn.Dense(7), nn.AvgPool2D(1), nn.Tanh(), nn.Dense(4),
		}},
		nn.Arch{Name: "globalavgpool", Input: [3]int{8, 7, 2}, Classes: 3, Layers: []nn.LayerSpec{
			nn.Conv2D(6, 3, 1), nn.ReLU(), nn.GlobalAvgPool(), nn.Dense(5), nn.Tanh(), nn.Conv2D(3, 1, 0), nn.GlobalAvgPool(),
		}},
	)
	for _, a := range archs {
		t.Run(a.Name, func(t *testing.T) {
			tr, b := pair(t, a, func() nn.Optimizer { return mustSGD(0.05, 0.9, 0) }, 5)
			x, y := synthetic(9, a, 16)
			for s := range 2 {
				lg, err := tr.TrainBatch(x, y)
				if err != nil {
					t.Fatal(err)
				}
				lt, err := b.TrainBatch(x, y)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(float64(lg-lt)) > 1e-4 {
					t.Errorf("step %d: loss go %.7f torch %.7f", s, lg, lt)
				}
			}
			if d, at := maxDiff(params(t, tr), params(t, b)); d > 1e-5 {
				t.Errorf("parameters differ by %.3g at %d", d, at)
			}
			compareEvalHessian(t, tr, b, a)
		})
	}
}

// TestDropoutMatchesPureGo: with dropout sources in the same state, the
// libtorch backend draws the pure-Go engine's masks and trains in step
// with it; without a source it refuses to train; evaluation is the
// identity on both; Config.DropoutSeed seeds one.
func TestDropoutMatchesPureGo(t *testing.T) {
	a := nn.Arch{Name: "dropout", Input: [3]int{8, 7, 2}, Classes: 4, Layers: []nn.LayerSpec{
		nn.Conv2D(5, 3, 1), nn.ReLU(), nn.Dropout(0.3), nn.AvgPool2D(2), nn.Flatten(), nn.Dense(16), nn.Tanh(),
		nn.Dropout(0.5), nn.Dense(4),
	}}
	tr, b := pair(t, a, func() nn.Optimizer { return mustSGD(0.05, 0.9, 0) }, 6)
	x, y := synthetic(3, a, 16)
	before := params(t, b)
	b.SetDropoutSource(nil)
	if _, err := b.TrainBatch(x, y); !errors.Is(err, nn.ErrConfig) {
		t.Fatalf("TrainBatch without a dropout source: %v, want ErrConfig", err)
	}
	if d, _ := maxDiff(before, params(t, b)); d != 0 {
		t.Fatal("a refused step changed the parameters")
	}
	tr.Model().SetDropoutSource(rand.New(rand.NewPCG(9, 9)))
	b.SetDropoutSource(rand.New(rand.NewPCG(9, 9)))
	for s := range 3 {
		lg, err := tr.TrainBatch(x, y)
		if err != nil {
			t.Fatal(err)
		}
		lt, err := b.TrainBatch(x, y)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(float64(lg-lt)) > 1e-4 {
			t.Errorf("step %d: loss go %.7f torch %.7f", s, lg, lt)
		}
	}
	if d, at := maxDiff(params(t, tr), params(t, b)); d > 1e-5 {
		t.Errorf("parameters differ by %.3g at %d", d, at)
	}
	compareEvalHessian(t, tr, b, a)
	// Another source draws other masks: the step differs.
	b.SetDropoutSource(rand.New(rand.NewPCG(10, 10)))
	tr.Model().SetDropoutSource(rand.New(rand.NewPCG(9, 9)))
	lg, _ := tr.TrainBatch(x, y)
	lt, err := b.TrainBatch(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if lg == lt {
		t.Error("different dropout sources gave the same loss")
	}
	seeded, err := New(a, mustSGD(0.05, 0.9, 0), Config{Device: "cpu", DropoutSeed: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer seeded.Close()
	if err := seeded.SetParams(params(t, b)); err != nil {
		t.Fatal(err)
	}
	if _, err := seeded.TrainBatch(x, y); err != nil {
		t.Fatalf("a backend seeded by Config.DropoutSeed: %v", err)
	}
}

// TestBadInput: every kind of bad input is a Go error wrapping the right
// sentinel, leaves the parameters unchanged, and the backend keeps
// training in step with the pure-Go engine afterwards.
func TestBadInput(t *testing.T) {
	a := mustArch("small-cnn")
	tr, b := pair(t, a, func() nn.Optimizer { return mustSGD(0.05, 0.9, 0) }, 4)
	x, y := synthetic(1, a, 8)
	f := b.inSize
	before := params(t, b)

	nanX := append([]float32(nil), x...)
	nanX[3*f+17] = float32(math.NaN())
	infX := append([]float32(nil), x...)
	infX[5] = float32(math.Inf(-1))
	badY := func(v int32) []int32 { c := append([]int32(nil), y...); c[2] = v; return c }
	nanP := append([]float32(nil), before...)
	nanP[len(nanP)-1] = float32(math.NaN())
	huge := make([]float32, len(before)) // finite, but the logits overflow
	for i := range huge {
		huge[i] = 3e38
	}

	cases := []struct {
		name string
		err  error
		call func() error
	}{
		{"x too short", nn.ErrShape, func() error { _, err := b.TrainBatch(x[:len(x)-1], y); return err }},
		{"y too short", nn.ErrShape, func() error { _, err := b.TrainBatch(x, y[:7]); return err }},
		{"empty batch", nn.ErrShape, func() error { _, err := b.TrainBatch(nil, nil); return err }},
		{"NaN data", nn.ErrNonFinite, func() error { _, err := b.TrainBatch(nanX, y); return err }},
		{"Inf data", nn.ErrNonFinite, func() error { _, err := b.TrainBatch(infX, y); return err }},
		{"label 10", nn.ErrLabel, func() error { _, err := b.TrainBatch(x, badY(10)); return err }},
		{"label -1", nn.ErrLabel, func() error { _, err := b.TrainBatch(x, badY(-1)); return err }},
		{"eval NaN data", nn.ErrNonFinite, func() error { _, err := b.Evaluate(nanX, y); return err }},
		{"eval label", nn.ErrLabel, func() error { _, err := b.Evaluate(x, badY(10)); return err }},
		{"eval short", nn.ErrShape, func() error { _, err := b.Evaluate(x[1:], y); return err }},
		{"hessian dst", nn.ErrShape, func() error { return b.HessianDiag(x, y, make([]float32, 3)) }},
		{"hessian label", nn.ErrLabel, func() error { return b.HessianDiag(x, badY(99), make([]float32, len(before))) }},
		{"params dst", nn.ErrShape, func() error { return b.Params(make([]float32, len(before)+1)) }},
		{"set short", nn.ErrShape, func() error { return b.SetParams(before[1:]) }},
		{"set NaN", nn.ErrNonFinite, func() error { return b.SetParams(nanP) }},
	}
	for _, c := range cases {
		err := c.call()
		if !errors.Is(err, c.err) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.err)
			continue
		}
		t.Logf("%s: %v", c.name, err)
		if d, _ := maxDiff(before, params(t, b)); d != 0 {
			t.Fatalf("%s: parameters changed by %g", c.name, d)
		}
	}

	// Overflowing (finite) parameters: the loss is not finite inside
	// libtorch; the step is refused and nothing changes.
	if err := b.SetParams(huge); err != nil {
		t.Fatal(err)
	}
	if _, err := b.TrainBatch(x, y); !errors.Is(err, nn.ErrNonFinite) {
		t.Errorf("overflowing parameters: got %v, want ErrNonFinite", err)
	} else {
		t.Logf("overflowing parameters: %v", err)
	}
	if _, err := b.Evaluate(x, y); !errors.Is(err, nn.ErrNonFinite) {
		t.Errorf("evaluate with overflowing parameters: got %v, want ErrNonFinite", err)
	}
	if d, _ := maxDiff(huge, params(t, b)); d != 0 {
		t.Fatal("a refused step changed the parameters")
	}
	if err := b.SetParams(before); err != nil {
		t.Fatal(err)
	}
	// Still in step with the pure-Go engine, momentum included.
	for s := range 3 {
		lg, err := tr.TrainBatch(x, y)
		if err != nil {
			t.Fatal(err)
		}
		lt, err := b.TrainBatch(x, y)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(float64(lg-lt)) > 1e-4 {
			t.Errorf("after the errors, step %d: loss go %.7f torch %.7f", s, lg, lt)
		}
	}

	// Construction errors.
	sgd := mustSGD(0.1, 0, 0)
	ctor := []struct {
		name string
		err  error
		call func() (*Backend, error)
	}{
		{"unknown layer kind", nn.ErrArch, func() (*Backend, error) {
			return New(nn.Arch{Name: "x", Input: [3]int{2, 2, 1}, Classes: 2, Layers: []nn.LayerSpec{{Kind: 99}}}, sgd, Config{})
		}},
		{"no layers", nn.ErrArch, func() (*Backend, error) {
			return New(nn.Arch{Name: "x", Input: [3]int{2, 2, 1}, Classes: 2}, sgd, Config{})
		}},
		{"wrong logits", nn.ErrArch, func() (*Backend, error) {
			return New(nn.Arch{Name: "x", Input: [3]int{2, 2, 1}, Classes: 3, Layers: []nn.LayerSpec{nn.Dense(2)}}, sgd, Config{})
		}},
		{"nil optimiser", nn.ErrConfig, func() (*Backend, error) { return New(a, nil, Config{}) }},
		{"nil *SGD", nn.ErrConfig, func() (*Backend, error) { return New(a, (*nn.SGD)(nil), Config{}) }},
		{"negative LR", nn.ErrConfig, func() (*Backend, error) { return New(a, &nn.SGD{LR: -1}, Config{}) }},
		{"NaN beta", nn.ErrConfig, func() (*Backend, error) {
			return New(a, &nn.Adam{LR: 1e-3, Beta1: float32(math.NaN()), Beta2: 0.999, Eps: 1e-8}, Config{})
		}},
		{"negative threads", nn.ErrConfig, func() (*Backend, error) { return New(a, sgd, Config{Threads: -2}) }},
		{"unknown device", nn.ErrConfig, func() (*Backend, error) { return New(a, sgd, Config{Device: "tpu"}) }},
	}
	if CUDADevices() == 0 {
		ctor = append(ctor, struct {
			name string
			err  error
			call func() (*Backend, error)
		}{"cuda without CUDA", ErrDevice, func() (*Backend, error) { return New(a, sgd, Config{Device: "cuda"}) }})
	}
	for _, c := range ctor {
		nb, err := c.call()
		if !errors.Is(err, c.err) || nb != nil {
			t.Errorf("%s: got %v, %v; want %v", c.name, nb, err, c.err)
			continue
		}
		t.Logf("%s: %v", c.name, err)
	}

	// Use after Close.
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.TrainBatch(x, y); !errors.Is(err, ErrClosed) {
		t.Errorf("TrainBatch after Close: %v", err)
	}
	if err := b.Params(before); !errors.Is(err, ErrClosed) {
		t.Errorf("Params after Close: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestDevice: "auto" picks CUDA exactly when the linked libtorch has a
// device, and the backend says where it runs.
func TestDevice(t *testing.T) {
	b, err := New(mustArch("mlp"), mustSGD(0.1, 0, 0), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	want := "cpu"
	if CUDADevices() > 0 {
		want = "cuda:0"
	}
	if b.Device() != want {
		t.Errorf("auto device %q, want %q (%d CUDA devices)", b.Device(), want, CUDADevices())
	}
	t.Logf("libtorch %s, %d CUDA devices, auto device %s, %d threads", Version(), CUDADevices(), b.Device(), Threads())
}

// TestFactory: the hook-shaped constructor builds working backends and
// returns a nil interface on error.
func TestFactory(t *testing.T) {
	a := mustArch("fedlay-mlp")
	nb, err := Factory(Config{Device: "cpu"})(a, mustSGD(0.1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer nb.(*Backend).Close()
	if nb.NumParams() != 62020 || nb.Arch().Name != "fedlay-mlp" {
		t.Errorf("factory backend: %d parameters, arch %q", nb.NumParams(), nb.Arch().Name)
	}
	x, y := synthetic(3, a, 4)
	if _, err := nb.TrainBatch(x, y); err != nil {
		t.Error(err)
	}
	bad, err := Factory(Config{Device: "tpu"})(a, mustSGD(0.1, 0, 0))
	if bad != nil || !errors.Is(err, nn.ErrConfig) {
		t.Errorf("bad device: %v, %v; want a nil Backend and nn.ErrConfig", bad, err)
	}
}
