package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peerlearn/peerlearn/internal/f32"
)

// accelArchs feature every layer type at sizes where f32 hands the work
// to its accelerated kernels (under GOOS=js the SIMD128 module: products
// of at least 2048 multiply-adds, vectors of at least 512 elements).
func accelArchs() []Arch {
	archs := []Arch{
		{Name: "dense", Input: [3]int{1, 64, 1}, Classes: 10, Layers: []LayerSpec{Dense(96), Dense(33), Dense(10)}},
		{Name: "relu", Input: [3]int{1, 64, 1}, Classes: 10, Layers: []LayerSpec{Dense(128), ReLU(), Dense(10)}},
		{Name: "tanh", Input: [3]int{1, 64, 1}, Classes: 10, Layers: []LayerSpec{Dense(128), Tanh(), Dense(10)}},
		{Name: "conv-pool", Input: [3]int{13, 12, 1}, Classes: 10, Layers: []LayerSpec{
			Conv2D(8, 3, 1), ReLU(), MaxPool2D(2), {Kind: KindConv2D, Units: 12, Kernel: 3, Stride: 2, Pad: 1}, Tanh(),
			Flatten(), Dense(10)}},
		{Name: "hwc", Input: [3]int{10, 10, 3}, Classes: 10, Layers: []LayerSpec{
			Conv2D(6, 3, 0), ReLU(), MaxPool2D(2), Flatten(), Dense(10)}},
		{Name: "avgpool-dropout", Input: [3]int{12, 12, 2}, Classes: 10, Layers: []LayerSpec{
			Conv2D(8, 3, 1), ReLU(), AvgPool2D(2), Dropout(0.25), Conv2D(12, 3, 1), Tanh(), GlobalAvgPool(),
			Dense(64), Dropout(0.5), Dense(10)}},
	}
	for _, name := range ArchNames() {
		a, err := NewArch(name)
		if err != nil {
			panic(err)
		}
		archs = append(archs, a)
	}
	return archs
}

// TestAcceleratedLayersMatchPureGo runs every layer type's forward and
// backward (plain gradients and the squared per-sample ones of
// HessianDiag) with the accelerated kernels and with pure Go: logits,
// loss and every gradient must agree within 1e-5, relative to the
// largest magnitude of the tensor. It fails if the accelerated kernels
// did not run where the build has them (under node that is the SIMD128
// module).
func TestAcceleratedLayersMatchPureGo(t *testing.T) {
	if f32.AccelError() != nil {
		t.Skipf("no accelerated kernels: %v", f32.AccelError())
	}
	const n = 8
	for i, a := range accelArchs() {
		t.Run(a.Name, func(t *testing.T) {
			m := initModel(t, a, uint64(500+i))
			x, y := randomBatch(rand.New(rand.NewPCG(17, uint64(i))), a, n)
			type result struct {
				logits, grads, hess []float32
				loss                float32
			}
			run := func(accel bool) result {
				defer f32.SetAccelerated(f32.SetAccelerated(accel))
				// Both runs draw the same Dropout masks.
				m.SetDropoutSource(rand.New(rand.NewPCG(3, 3)))
				var r result
				logits, err := m.Forward(x, n)
				if err != nil {
					t.Fatal(err)
				}
				r.logits = append([]float32(nil), logits...)
				if r.loss, err = m.LossGrad(x, y); err != nil {
					t.Fatal(err)
				}
				r.grads = append([]float32(nil), m.Grads()...)
				r.hess = make([]float32, m.NumParams())
				if err := m.HessianDiag(x, y, n, r.hess, nil); err != nil {
					t.Fatal(err)
				}
				return r
			}
			want := run(false)
			calls := f32.AccelCalls()
			got := run(true)
			if f32.AccelCalls() == calls {
				t.Fatalf("no accelerated kernel ran (%s)", f32.Kernels())
			}
			closeTo(t, "logits", got.logits, want.logits)
			closeTo(t, "loss", []float32{got.loss}, []float32{want.loss})
			for _, tn := range m.Layout() {
				closeTo(t, tn.Name+" gradient", got.grads[tn.Offset:tn.Offset+tn.Size()], want.grads[tn.Offset:tn.Offset+tn.Size()])
				closeTo(t, tn.Name+" squared gradient", got.hess[tn.Offset:tn.Offset+tn.Size()], want.hess[tn.Offset:tn.Offset+tn.Size()])
			}
		})
	}
}

// closeTo fails unless every got[i] is within 1e-5 of want[i], relative
// to the largest |want|.
func closeTo(t *testing.T, what string, got, want []float32) {
	t.Helper()
	var scale float64
	for _, v := range want {
		scale = max(scale, math.Abs(float64(v)))
	}
	for i := range want {
		if d := math.Abs(float64(got[i]) - float64(want[i])); !(d <= 1e-5*scale) {
			t.Fatalf("%s[%d]: accelerated %g, pure Go %g (scale %g)", what, i, got[i], want[i], scale)
		}
	}
}
