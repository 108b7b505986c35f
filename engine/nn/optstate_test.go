package nn

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// An optimiser restored from StateOf continues exactly as the original:
// the same parameters, bit for bit, after further steps.
func TestOptStateRoundTrip(t *testing.T) {
	grads := func(k int) []float32 {
		g := make([]float32, 5)
		for i := range g {
			g[i] = float32(math.Sin(float64(k*7 + i)))
		}
		return g
	}
	for _, mk := range []func() (Optimizer, error){
		func() (Optimizer, error) { return NewSGD(0.1, 0.9, 0.01) },
		func() (Optimizer, error) { return NewAdam(0.01) },
		func() (Optimizer, error) { return NewAdamW(0.01, 0.01) },
	} {
		a, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		pa := []float32{1, -2, 3, 0.5, -0.25}
		for k := range 3 {
			if err := a.Step(pa, grads(k)); err != nil {
				t.Fatal(err)
			}
		}
		st, err := StateOf(a)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := mk()
		if err := SetState(b, st, len(pa)); err != nil {
			t.Fatalf("%s: %v", st.Kind, err)
		}
		pb := slices.Clone(pa)
		for k := 3; k < 6; k++ {
			if err := a.Step(pa, grads(k)); err != nil {
				t.Fatal(err)
			}
			if err := b.Step(pb, grads(k)); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(pa, pb) {
			t.Errorf("%s: restored optimiser diverged: %v vs %v", st.Kind, pb, pa)
		}
		// A fresh optimiser (no state) would not: the test can fail.
		c, _ := mk()
		pc := slices.Clone(pb)
		_ = c.Step(pc, grads(9))
		_ = b.Step(pb, grads(9))
		if slices.Equal(pb, pc) {
			t.Errorf("%s: the state made no difference", st.Kind)
		}
	}
}

func TestOptStateRefused(t *testing.T) {
	sgd, _ := NewSGD(0.1, 0.9, 0)
	adam, _ := NewAdam(0.01)
	plain, _ := NewSGD(0.1, 0, 0)
	nan := []float32{0, float32(math.NaN()), 0}
	for _, c := range []struct {
		name string
		o    Optimizer
		s    OptState
		want error
	}{
		{"other kind", sgd, OptState{Kind: "adam", Step: 1, Buffers: [][]float32{{0, 0, 0}, {0, 0, 0}}}, ErrMismatch},
		{"short buffer", sgd, OptState{Kind: "sgd", Buffers: [][]float32{{0, 0}}}, ErrMismatch},
		{"non-finite", sgd, OptState{Kind: "sgd", Buffers: [][]float32{nan}}, ErrNonFinite},
		{"momentum buffer without momentum", plain, OptState{Kind: "sgd", Buffers: [][]float32{{0, 0, 0}}}, ErrMismatch},
		{"adam one buffer", adam, OptState{Kind: "adam", Step: 2, Buffers: [][]float32{{0, 0, 0}}}, ErrMismatch},
		{"adam step out of range", adam, OptState{Kind: "adam", Step: maxAdamStep + 1, Buffers: [][]float32{{0, 0, 0}, {0, 0, 0}}}, ErrConfig},
		{"adam negative step", adam, OptState{Kind: "adam", Step: -1}, ErrConfig},
	} {
		if err := SetState(c.o, c.s, 3); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}
