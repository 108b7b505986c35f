package nn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestBuiltinLayouts pins the parameter counts and tensor shapes the
// architecture comments document (a libtorch backend reproduces them).
func TestBuiltinLayouts(t *testing.T) {
	for _, c := range []struct {
		name   string
		params int
		shapes string
	}{
		{"mlp", 101770, "[[128 784] [128] [10 128] [10]]"},
		{"fedlay-mlp", 62020, "[[78 784] [78] [10 78] [10]]"},
		{"mlp3", 567434, "[[512 784] [512] [256 512] [256] [128 256] [128] [10 128] [10]]"},
		{"dechw-cnn", 21840, "[[10 1 5 5] [10] [20 10 5 5] [20] [50 320] [50] [10 50] [10]]"},
		{"small-cnn", 9098, "[[8 1 3 3] [8] [16 8 3 3] [16] [10 784] [10]]"},
	} {
		a, err := NewArch(c.name)
		if err != nil {
			t.Fatal(err)
		}
		tensors, err := a.Layout()
		if err != nil {
			t.Fatal(err)
		}
		var shapes [][]int
		off := 0
		for _, tn := range tensors {
			if tn.Offset != off {
				t.Errorf("%s: %s at offset %d, want %d (contiguous)", c.name, tn.Name, tn.Offset, off)
			}
			off += tn.Size()
			shapes = append(shapes, tn.Shape)
		}
		if n, _ := a.NumParams(); n != c.params || off != c.params {
			t.Errorf("%s: %d parameters, want %d", c.name, n, c.params)
		}
		if got := fmt.Sprint(shapes); got != c.shapes {
			t.Errorf("%s: shapes %s, want %s", c.name, got, c.shapes)
		}
	}
	// FedLay's model is "247 KB" (Table II): 62,020 float32 are 248,080 bytes.
	if a, _ := NewArch("fedlay-mlp"); math.Abs(float64(4*mustCount(a))-247e3)/247e3 > 0.005 {
		t.Errorf("fedlay-mlp is %d bytes, not ~247 kB", 4*mustCount(a))
	}
}

func mustCount(a Arch) int {
	n, err := a.NumParams()
	if err != nil {
		panic(err)
	}
	return n
}

func TestInvalidArchitecturesAreErrors(t *testing.T) {
	base := func(layers ...LayerSpec) Arch {
		return Arch{Name: "x", Input: [3]int{8, 8, 1}, Classes: 3, Layers: layers}
	}
	for name, a := range map[string]Arch{
		"no layers":            base(),
		"no parameters":        {Name: "x", Input: [3]int{1, 3, 1}, Classes: 3, Layers: []LayerSpec{ReLU()}},
		"wrong logit count":    base(Dense(4)),
		"spatial output":       base(Conv2D(3, 3, 0)),
		"kernel too large":     base(Conv2D(2, 9, 0), Dense(3)),
		"pad not below kernel": base(Conv2D(2, 3, 3), Dense(3)),
		"zero units":           base(Dense(0), Dense(3)),
		"pool too large":       base(MaxPool2D(9), Dense(3)),
		"unknown kind":         base(LayerSpec{Kind: 99}, Dense(3)),
		"one class":            {Name: "x", Input: [3]int{8, 8, 1}, Classes: 1, Layers: []LayerSpec{Dense(1)}},
		"empty input":          {Name: "x", Input: [3]int{0, 8, 1}, Classes: 3, Layers: []LayerSpec{Dense(3)}},
		"huge dense":           base(Dense(1<<30), Dense(3)),
		"huge conv":            base(Conv2D(1<<20, 1<<20, 0), Dense(3)),
		"no name":              {Input: [3]int{8, 8, 1}, Classes: 3, Layers: []LayerSpec{Dense(3)}},
	} {
		if _, err := NewModel(a); !errors.Is(err, ErrArch) {
			t.Errorf("%s: %v, want ErrArch", name, err)
		}
	}
	if _, err := NewArch("resnet"); !errors.Is(err, ErrArch) {
		t.Errorf("unknown name: %v", err)
	}
}

func TestBadBatchesAreErrorsAndChangeNothing(t *testing.T) {
	tr := newTrainer(t, "mlp", 1, nil)
	x, y := synthetic(1, tr.Arch(), 4)
	before := Fingerprint(tr.Model().Params())
	nan := append([]float32(nil), x...)
	nan[100] = float32(math.NaN())
	inf := append([]float32(nil), x...)
	inf[5] = float32(math.Inf(1))
	for _, c := range []struct {
		name string
		x    []float32
		y    []int32
		want error
	}{
		{"short x", x[:len(x)-1], y, ErrShape},
		{"missing labels", x, y[:3], ErrShape},
		{"empty", nil, nil, ErrShape},
		{"label 10", x, []int32{0, 1, 10, 2}, ErrLabel},
		{"label -1", x, []int32{0, 1, -1, 2}, ErrLabel},
		{"NaN feature", nan, y, ErrNonFinite},
		{"Inf feature", inf, y, ErrNonFinite},
	} {
		if _, err := tr.TrainBatch(c.x, c.y); !errors.Is(err, c.want) {
			t.Errorf("TrainBatch %s: %v, want %v", c.name, err, c.want)
		}
		if _, err := tr.Evaluate(c.x, c.y); !errors.Is(err, c.want) {
			t.Errorf("Evaluate %s: %v, want %v", c.name, err, c.want)
		}
		if err := tr.HessianDiag(c.x, c.y, make([]float32, tr.NumParams())); !errors.Is(err, c.want) {
			t.Errorf("HessianDiag %s: %v, want %v", c.name, err, c.want)
		}
	}
	if err := tr.HessianDiag(x, y, make([]float32, 3)); !errors.Is(err, ErrShape) {
		t.Errorf("HessianDiag short destination: %v", err)
	}
	if err := tr.Params(make([]float32, 3)); !errors.Is(err, ErrShape) {
		t.Errorf("Params short destination: %v", err)
	}
	if err := tr.SetParams(make([]float32, 3)); !errors.Is(err, ErrShape) {
		t.Errorf("SetParams short: %v", err)
	}
	bad := make([]float32, tr.NumParams())
	bad[7] = float32(math.NaN())
	if err := tr.SetParams(bad); !errors.Is(err, ErrNonFinite) {
		t.Errorf("SetParams NaN: %v", err)
	}
	if Fingerprint(tr.Model().Params()) != before {
		t.Fatal("a rejected call changed the parameters")
	}
}

// TestOverflowIsAnErrorNotAStep gives the model finite but huge weights,
// whose logits overflow float32: the step must fail with ErrNonFinite and
// leave the parameters as they were.
func TestOverflowIsAnErrorNotAStep(t *testing.T) {
	tr := newTrainer(t, "fedlay-mlp", 1, nil)
	x, y := synthetic(1, tr.Arch(), 8)
	huge := make([]float32, tr.NumParams())
	for i := range huge {
		huge[i] = 1e20
	}
	if err := tr.SetParams(huge); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.TrainBatch(x, y); !errors.Is(err, ErrNonFinite) {
		t.Fatalf("overflowing step: %v, want ErrNonFinite", err)
	}
	if Fingerprint(tr.Model().Params()) != Fingerprint(huge) {
		t.Fatal("the failed step changed the parameters")
	}
	if _, err := tr.Evaluate(x, y); !errors.Is(err, ErrNonFinite) {
		t.Fatalf("overflowing evaluation: %v, want ErrNonFinite", err)
	}
}

func TestInitSchemesAndGains(t *testing.T) {
	a, _ := NewArch("mlp")
	m, _ := NewModel(a)
	if err := m.Init(rand.New(rand.NewPCG(1, 2)), HeNormal, nil); err != nil {
		t.Fatal(err)
	}
	ref := append([]float32(nil), m.Params()...)
	layout := m.Layout()
	w0 := ref[:layout[0].Size()]
	// He normal: standard deviation sqrt(2/784) on 100,352 draws.
	var ss float64
	for _, v := range w0 {
		ss += float64(v) * float64(v)
	}
	if std, want := math.Sqrt(ss/float64(len(w0))), math.Sqrt(2.0/784); math.Abs(std-want) > 0.01*want {
		t.Errorf("He normal std %v, want %v", std, want)
	}
	for _, v := range ref[layout[1].Offset : layout[1].Offset+layout[1].Size()] {
		if v != 0 {
			t.Fatal("bias not zero")
		}
	}
	// Gains scale each layer's weights exactly (by powers of two here).
	if err := m.Init(rand.New(rand.NewPCG(1, 2)), HeNormal, Gains(2, 0.5)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tn   Tensor
		gain float32
	}{{layout[0], 2}, {layout[2], 0.5}} {
		for j := c.tn.Offset; j < c.tn.Offset+c.tn.Size(); j++ {
			if m.Params()[j] != c.gain*ref[j] {
				t.Fatalf("%s[%d] = %v with gain %v, %v without", c.tn.Name, j-c.tn.Offset, m.Params()[j], c.gain, ref[j])
			}
		}
	}
	// Glorot uniform stays within ±sqrt(6/(fanIn+fanOut)) and fills it.
	if err := m.Init(rand.New(rand.NewPCG(1, 2)), GlorotUniform, nil); err != nil {
		t.Fatal(err)
	}
	bound := math.Sqrt(6.0 / (784 + 128))
	var hi float64
	for _, v := range m.Params()[:layout[0].Size()] {
		hi = max(hi, math.Abs(float64(v)))
	}
	if hi > bound || hi < 0.99*bound {
		t.Errorf("Glorot uniform max |w| %v, bound %v", hi, bound)
	}
	for _, c := range []struct {
		name   string
		scheme InitScheme
		gain   Gain
	}{{"bad scheme", 0, nil}, {"NaN gain", HeNormal, Gains(float32(math.NaN()))}, {"negative gain", HeUniform, Gains(-1)}} {
		if err := m.Init(rand.New(rand.NewPCG(1, 2)), c.scheme, c.gain); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if err := m.Init(nil, HeNormal, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("nil rng: %v", err)
	}
}
