package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// gradArchs covers every layer type, stride and padding, a layer's input
// gradient (each is followed by a parameterised layer whose dx matters
// only if the layer is not first), and the HWC->CHW reorder.
func gradArchs() []Arch {
	conv := func(f, k, s, p int) LayerSpec {
		return LayerSpec{Kind: KindConv2D, Units: f, Kernel: k, Stride: s, Pad: p}
	}
	return []Arch{
		{Name: "dense", Input: [3]int{1, 6, 1}, Classes: 3, Layers: []LayerSpec{Dense(5), Dense(4), Dense(3)}},
		{Name: "relu", Input: [3]int{1, 6, 1}, Classes: 3, Layers: []LayerSpec{Dense(7), ReLU(), Dense(3)}},
		{Name: "tanh", Input: [3]int{1, 6, 1}, Classes: 3, Layers: []LayerSpec{Dense(7), Tanh(), Dense(3)}},
		{Name: "flatten-dense", Input: [3]int{3, 2, 1}, Classes: 4, Layers: []LayerSpec{Flatten(), Dense(4)}},
		{Name: "conv", Input: [3]int{7, 6, 1}, Classes: 3, Layers: []LayerSpec{
			Conv2D(2, 3, 0), Tanh(), conv(3, 3, 2, 1), Flatten(), Dense(3)}},
		{Name: "conv-pad", Input: [3]int{5, 5, 1}, Classes: 3, Layers: []LayerSpec{
			Conv2D(2, 3, 1), ReLU(), Conv2D(2, 2, 1), Flatten(), Dense(3)}},
		{Name: "maxpool", Input: [3]int{8, 9, 1}, Classes: 3, Layers: []LayerSpec{
			Conv2D(3, 3, 1), MaxPool2D(2), ReLU(), Conv2D(2, 2, 0), MaxPool2D(3), Flatten(), Dense(3)}},
		{Name: "hwc", Input: [3]int{4, 5, 3}, Classes: 3, Layers: []LayerSpec{
			Conv2D(2, 3, 1), Tanh(), Flatten(), Dense(3)}},
		{Name: "avgpool", Input: [3]int{8, 9, 2}, Classes: 3, Layers: []LayerSpec{
			Conv2D(3, 3, 1), AvgPool2D(2), Tanh(), Conv2D(2, 2, 0), AvgPool2D(3), Flatten(), Dense(3)}},
		{Name: "globalavgpool", Input: [3]int{6, 5, 1}, Classes: 3, Layers: []LayerSpec{
			Conv2D(4, 3, 1), ReLU(), GlobalAvgPool(), Dense(3)}},
		{Name: "globalavgpool-logits", Input: [3]int{5, 5, 1}, Classes: 3, Layers: []LayerSpec{
			Conv2D(4, 3, 0), Tanh(), Conv2D(3, 1, 0), GlobalAvgPool()}},
		// Dropout is the identity outside LossGrad, and the gradient tests
		// below train with rate 0 here (TestDropoutGradients covers masks).
		{Name: "dropout-eval", Input: [3]int{1, 6, 1}, Classes: 3, Layers: []LayerSpec{
			Dense(7), Tanh(), Dropout(0), Dense(3)}},
	}
}

// TestForwardMatchesReference checks every layer and every built-in
// architecture against the float64 reference, and with it the documented
// parameter layout.
func TestForwardMatchesReference(t *testing.T) {
	archs := gradArchs()
	for _, name := range ArchNames() {
		a, err := NewArch(name)
		if err != nil {
			t.Fatal(err)
		}
		archs = append(archs, a)
	}
	for i, a := range archs {
		t.Run(a.Name, func(t *testing.T) {
			m := initModel(t, a, uint64(i))
			x, _ := randomBatch(rand.New(rand.NewPCG(7, uint64(i))), a, 3)
			got, err := m.Forward(x, 3)
			if err != nil {
				t.Fatal(err)
			}
			want := refLogits(a, to64(m.Params()), x, 3)
			for s := range 3 {
				for j, w := range want[s] {
					g := float64(got[s*a.Classes+j])
					if math.Abs(g-w) > 1e-4*(1+math.Abs(w)) {
						t.Fatalf("sample %d logit %d = %v, reference %v", s, j, g, w)
					}
				}
			}
		})
	}
}

// TestGradientsMatchFiniteDifferences compares LossGrad's float32
// gradient with central differences of the float64 reference loss.
func TestGradientsMatchFiniteDifferences(t *testing.T) {
	for i, a := range gradArchs() {
		t.Run(a.Name, func(t *testing.T) {
			m := initModel(t, a, uint64(100+i))
			x, y := randomBatch(rand.New(rand.NewPCG(9, uint64(i))), a, 4)
			if _, err := m.LossGrad(x, y); err != nil {
				t.Fatal(err)
			}
			checkGrad(t, a, m.Params(), m.Grads(), x, y, nil)
		})
	}
}

// checkGrad compares grad (of the mean loss) with finite differences of
// refLoss at params, for the parameter indices in idx (all when nil).
func checkGrad(t *testing.T, a Arch, params, grad []float32, x []float32, y []int32, idx []int) {
	t.Helper()
	p := to64(params)
	if idx == nil {
		for j := range p {
			idx = append(idx, j)
		}
	}
	// The reference is float64, so a small step is precise and rarely
	// straddles a ReLU or max-pool kink (with 1e-4 small-cnn does).
	const eps = 1e-6
	var worst float64
	for _, j := range idx {
		orig := p[j]
		p[j] = orig + eps
		up := refLoss(a, p, x, y)
		p[j] = orig - eps
		down := refLoss(a, p, x, y)
		p[j] = orig
		num := (up - down) / (2 * eps)
		got := float64(grad[j])
		diff := math.Abs(got - num)
		if diff > 1e-5+1e-3*math.Abs(num) {
			t.Errorf("param %d: gradient %.7g, finite difference %.7g", j, got, num)
		}
		worst = max(worst, diff)
	}
	t.Logf("%d parameters, worst |analytic - numeric| = %.3g", len(idx), worst)
}

func TestLossGradientAndStability(t *testing.T) {
	logits := []float32{1, -2, 0.5, 3, 1e4, -1e4, 1e4 - 1, 0, -3e4, -3e4, -3e4, -3e4}
	y := []int32{2, 2, 1}
	grad := make([]float32, len(logits))
	total, err := softmaxCE(logits, y, 4, grad, 1)
	if err != nil {
		t.Fatal(err)
	}
	ref := refCE
	var want float64
	for i, l := range y {
		z := to64(logits[i*4 : (i+1)*4])
		want += ref(z, int(l))
		for j := range z {
			const eps = 1e-3
			orig := z[j]
			z[j] = orig + eps
			up := ref(z, int(l))
			z[j] = orig - eps
			down := ref(z, int(l))
			z[j] = orig
			if num := (up - down) / (2 * eps); math.Abs(float64(grad[i*4+j])-num) > 1e-5 {
				t.Errorf("sample %d dlogit %d = %v, finite difference %v", i, j, grad[i*4+j], num)
			}
		}
	}
	if math.Abs(total-want) > 1e-5*want {
		t.Fatalf("loss sum %v, want %v", total, want)
	}
	// Huge logits stay finite: the 1e4 row costs exactly its gap of 1.
	if math.IsInf(total, 0) || math.IsNaN(total) {
		t.Fatalf("loss %v", total)
	}
}

func TestConvStrideAndPaddingShapes(t *testing.T) {
	a := Arch{Name: "s", Input: [3]int{9, 7, 1}, Classes: 2, Layers: []LayerSpec{
		{Kind: KindConv2D, Units: 2, Kernel: 3, Stride: 2, Pad: 1}, Flatten(), Dense(2)}}
	tensors, err := a.Layout()
	if err != nil {
		t.Fatal(err)
	}
	// (9+2-3)/2+1 = 5, (7+2-3)/2+1 = 4: dense sees 2*5*4 = 40 inputs.
	if got := fmt.Sprint(tensors[2].Shape); got != "[2 40]" {
		t.Fatalf("dense weight shape %s, want [2 40]", got)
	}
}

// TestBuiltinGradients spot-checks the built-in CNNs' gradients at real
// sizes (a sample of each tensor's entries: the float64 reference is slow).
func TestBuiltinGradients(t *testing.T) {
	for i, name := range []string{"dechw-cnn", "small-cnn", "fedlay-mlp"} {
		t.Run(name, func(t *testing.T) {
			a, err := NewArch(name)
			if err != nil {
				t.Fatal(err)
			}
			m := initModel(t, a, uint64(200+i))
			rng := rand.New(rand.NewPCG(11, uint64(i)))
			x, y := randomBatch(rng, a, 2)
			if _, err := m.LossGrad(x, y); err != nil {
				t.Fatal(err)
			}
			var idx []int
			for _, tn := range m.Layout() {
				for range 8 {
					idx = append(idx, tn.Offset+rng.IntN(tn.Size()))
				}
			}
			checkGrad(t, a, m.Params(), m.Grads(), x, y, idx)
		})
	}
}

func TestOrderKeyPreservesFloatOrder(t *testing.T) {
	special := []float32{-math.MaxFloat32, -1, -1e-40, 0, 1e-45, 1e-40, 0.5, 1, math.MaxFloat32}
	for i := range special {
		for j := range special {
			a, b := special[i], special[j]
			if (orderKey(a) < orderKey(b)) != (a < b) {
				t.Errorf("orderKey order of %v, %v disagrees with <", a, b)
			}
		}
		if fromOrderKey(orderKey(special[i])) != special[i] {
			t.Errorf("fromOrderKey(orderKey(%v)) = %v", special[i], fromOrderKey(orderKey(special[i])))
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 10000 {
		a := float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(60)-30)))
		b := float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(60)-30)))
		if (orderKey(a) < orderKey(b)) != (a < b) {
			t.Fatalf("orderKey order of %v, %v disagrees with <", a, b)
		}
	}
	if orderKey(float32(math.Copysign(0, -1))) >= orderKey(0) {
		t.Error("-0 should sort below +0")
	}
}
