package nn

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// dropoutArch has two Dropout layers, one on a conv map and one on a
// hidden vector.
func dropoutArch() Arch {
	return Arch{Name: "dropout", Input: [3]int{6, 6, 1}, Classes: 3, Layers: []LayerSpec{
		Conv2D(2, 3, 1), ReLU(), Dropout(0.3), Flatten(), Dense(9), Tanh(), Dropout(0.5), Dense(3)}}
}

// dropMasks returns the masks of the last LossGrad by layer index.
func dropMasks(m *Model, n int) map[int][]float32 {
	out := map[int][]float32{}
	j := 0
	for i, l := range m.arch.Layers {
		if l.Kind == KindDropout {
			d := m.drops[j]
			out[i] = append([]float32(nil), d.mask[:n*d.size]...)
			j++
		}
	}
	return out
}

// TestDropoutGradients checks a training step's gradient against finite
// differences of the reference loss under the same masks.
func TestDropoutGradients(t *testing.T) {
	a := dropoutArch()
	m := initModel(t, a, 31)
	x, y := randomBatch(rand.New(rand.NewPCG(5, 5)), a, 4)
	if _, err := m.LossGrad(x, y); err != nil {
		t.Fatal(err)
	}
	masks := dropMasks(m, 4)
	var zeros, total int
	for _, mask := range masks {
		for _, v := range mask {
			total++
			if v == 0 {
				zeros++
			}
		}
	}
	if zeros == 0 || zeros == total {
		t.Fatalf("%d of %d mask values are zero: dropout did not drop, or dropped all", zeros, total)
	}
	refDropMasks = masks
	defer func() { refDropMasks = nil }()
	checkGrad(t, a, m.Params(), m.Grads(), x, y, nil)
}

// TestDropoutIsIdentityWhenEvaluating: Forward, Evaluate and the logits
// after a training step equal those of the same stack without Dropout.
func TestDropoutIsIdentityWhenEvaluating(t *testing.T) {
	a := dropoutArch()
	plain := a
	plain.Layers = nil
	for _, l := range a.Layers {
		if l.Kind != KindDropout {
			plain.Layers = append(plain.Layers, l)
		}
	}
	m := initModel(t, a, 32)
	p, err := NewModel(plain)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetParams(m.Params()); err != nil {
		t.Fatal(err)
	}
	x, y := randomBatch(rand.New(rand.NewPCG(6, 6)), a, 5)
	if _, err := m.LossGrad(x, y); err != nil { // leaves training mode
		t.Fatal(err)
	}
	got, err := m.Forward(x, 5)
	if err != nil {
		t.Fatal(err)
	}
	got = append([]float32(nil), got...)
	want, err := p.Forward(x, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("logit %d: %v with Dropout at evaluation, %v without", i, got[i], want[i])
		}
	}
	r1, err := m.Evaluate(x, y, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := p.Evaluate(x, y, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r1.Loss != r2.Loss || r1.Accuracy != r2.Accuracy {
		t.Fatalf("Evaluate with Dropout %v/%v, without %v/%v", r1.Loss, r1.Accuracy, r2.Loss, r2.Accuracy)
	}
}

// TestDropoutMasks: the drop fraction is near the rate, survivors are
// scaled by 1/(1-rate), and the masks follow the source: the same seed
// gives the same masks, another seed others.
func TestDropoutMasks(t *testing.T) {
	a := Arch{Name: "d", Input: [3]int{1, 400, 1}, Classes: 2, Layers: []LayerSpec{Dropout(0.25), Dense(2)}}
	masksFor := func(seed uint64) []float32 {
		m, err := NewModel(a)
		if err != nil {
			t.Fatal(err)
		}
		m.SetDropoutSource(rand.New(rand.NewPCG(seed, 0)))
		x, y := randomBatch(rand.New(rand.NewPCG(1, 1)), a, 10)
		if _, err := m.LossGrad(x, y); err != nil {
			t.Fatal(err)
		}
		return dropMasks(m, 10)[0]
	}
	m1, m2, m3 := masksFor(1), masksFor(1), masksFor(2)
	zeros, same, diff := 0, true, 0
	for i, v := range m1 {
		if v == 0 {
			zeros++
		} else if v != float32(1/0.75) {
			t.Fatalf("mask value %v, want 0 or %v", v, float32(1/0.75))
		}
		same = same && v == m2[i]
		if v != m3[i] {
			diff++
		}
	}
	// 4,000 draws at p = 0.25: sd 27, so 5 sd is 137.
	if math.Abs(float64(zeros)-1000) > 137 {
		t.Errorf("%d of 4000 values dropped, want about 1000", zeros)
	}
	if !same {
		t.Error("the same seed gave different masks")
	}
	if diff == 0 {
		t.Error("two seeds gave the same masks")
	}
}

// TestDropoutSource: without Init or SetDropoutSource a model with
// Dropout refuses to train; Init seeds it from its generator, so the same
// Init seed trains to the same parameters; a model without Dropout draws
// nothing extra from Init's generator.
func TestDropoutSource(t *testing.T) {
	a := dropoutArch()
	m, err := NewModel(a)
	if err != nil {
		t.Fatal(err)
	}
	x, y := randomBatch(rand.New(rand.NewPCG(7, 7)), a, 6)
	if _, err := m.LossGrad(x, y); !errors.Is(err, ErrConfig) {
		t.Fatalf("LossGrad without a dropout source: %v, want ErrConfig", err)
	}
	train := func() []float32 {
		m, err := NewModel(a)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Init(rand.New(rand.NewPCG(3, 3)), HeNormal, nil); err != nil {
			t.Fatal(err)
		}
		tr, err := NewTrainer(m, &SGD{LR: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := tr.TrainBatch(x, y); err != nil {
				t.Fatal(err)
			}
		}
		return append([]float32(nil), m.Params()...)
	}
	p1, p2 := train(), train()
	for i := range p1 {
		if p1[i] != p2[i] {
			t.Fatalf("parameter %d: %v then %v from the same Init seed", i, p1[i], p2[i])
		}
	}
}

// TestNewLayersRefused: bad geometry and rates are refused with the layer named.
func TestNewLayersRefused(t *testing.T) {
	for _, l := range []LayerSpec{
		Dropout(-0.1), Dropout(1), Dropout(math.NaN()), Dropout(math.Inf(1)),
		AvgPool2D(0), AvgPool2D(5), {Kind: KindAvgPool2D, Kernel: 2, Stride: 1},
	} {
		a := Arch{Name: "bad", Input: [3]int{4, 4, 1}, Classes: 2, Layers: []LayerSpec{l, Dense(2)}}
		_, err := a.Layout()
		if !errors.Is(err, ErrArch) {
			t.Errorf("%v: %v, want ErrArch", l, err)
		}
	}
}

func TestKindByName(t *testing.T) {
	for k, name := range kindNames {
		got, ok := KindByName(name)
		if !ok || got != k {
			t.Errorf("KindByName(%q) = %v, %v", name, got, ok)
		}
	}
	if _, ok := KindByName("softmax"); ok {
		t.Error("KindByName accepted an unknown name")
	}
}
