package nn

import (
	"errors"
	"math"
	"testing"
)

// stepTwice runs two steps from p = 1 with gradients 0.5 then -0.25 and
// returns the parameter after each.
func stepTwice(t *testing.T, opt Optimizer) [2]float32 {
	t.Helper()
	p := []float32{1}
	var got [2]float32
	for i, g := range []float32{0.5, -0.25} {
		if err := opt.Step(p, []float32{g}); err != nil {
			t.Fatal(err)
		}
		got[i] = p[0]
	}
	return got
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*(1+math.Abs(b)) }

// Expected values are worked by hand from the update rules in the doc
// comments (and agree with PyTorch's formulas).
func TestOptimizerStepsMatchHandComputedValues(t *testing.T) {
	sgd := func(lr, mu, wd float32, nesterov bool) Optimizer {
		s, err := NewSGD(lr, mu, wd)
		if err != nil {
			t.Fatal(err)
		}
		s.Nesterov = nesterov
		return s
	}
	adam := func(wd float32, decoupled bool) Optimizer {
		a, err := NewAdam(0.1)
		if err != nil {
			t.Fatal(err)
		}
		a.WeightDecay, a.Decoupled = wd, decoupled
		return a
	}
	for _, c := range []struct {
		name string
		opt  Optimizer
		want [2]float64
	}{
		// p1 = 1 - 0.1*0.5 = 0.95; p2 = 0.95 + 0.1*0.25 = 0.975.
		{"sgd", sgd(0.1, 0, 0, false), [2]float64{0.95, 0.975}},
		// g1 = 0.5 + 0.1*1 = 0.6, v1 = 0.6, p1 = 0.94;
		// g2 = -0.25 + 0.094 = -0.156, v2 = 0.54 - 0.156 = 0.384, p2 = 0.94 - 0.0384.
		{"sgd-momentum-decay", sgd(0.1, 0.9, 0.1, false), [2]float64{0.94, 0.9016}},
		// d1 = 0.6 + 0.9*0.6 = 1.14, p1 = 0.886;
		// g2 = -0.25 + 0.0886 = -0.1614, v2 = 0.54 - 0.1614 = 0.3786,
		// d2 = -0.1614 + 0.34074 = 0.17934, p2 = 0.886 - 0.017934.
		{"sgd-nesterov", sgd(0.1, 0.9, 0.1, true), [2]float64{0.886, 0.868066}},
		// m1 = 0.05, v1 = 0.00025: m̂/sqrt(v̂) = 0.5/0.5 = 1, p1 = 0.9;
		// m2 = 0.045 - 0.025 = 0.02, v2 = 0.00024975 + 0.0000625 = 0.00031225,
		// step = 0.1/0.19 * 0.02 / (sqrt(0.00031225)/sqrt(0.001999)) = 0.0266337.
		{"adam", adam(0, false), [2]float64{0.9, 0.8733663}},
		// p shrinks by 1 - 0.1*0.1 = 0.99 before each Adam step:
		// p1 = 0.99 - 0.1; p2 = 0.89*0.99 - 0.0266337.
		{"adamw", adam(0.1, true), [2]float64{0.89, 0.8544663}},
		// L2: g1 = 0.6 (still a unit step), g2 = -0.25 + 0.09 = -0.16:
		// m2 = 0.054 - 0.016 = 0.038, v2 = 0.00035964 + 0.0000256 = 0.00038524,
		// step = 0.1/0.19 * 0.038 / (sqrt(0.00038524)/sqrt(0.001999)) = 0.0455586.
		{"adam-l2", adam(0.1, false), [2]float64{0.9, 0.8544414}},
	} {
		got := stepTwice(t, c.opt)
		if !near(float64(got[0]), c.want[0]) || !near(float64(got[1]), c.want[1]) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
		// Reset returns the optimiser to its initial state: the same two
		// steps from p = 1 give the same values again.
		c.opt.Reset()
		if again := stepTwice(t, c.opt); again != got {
			t.Errorf("%s after Reset: got %v, want %v", c.name, again, got)
		}
	}
}

func TestOptimizerRejectsBadInput(t *testing.T) {
	if _, err := NewSGD(-1, 0, 0); !errors.Is(err, ErrConfig) {
		t.Errorf("negative learning rate: %v", err)
	}
	if _, err := NewSGD(0.1, float32(math.NaN()), 0); !errors.Is(err, ErrConfig) {
		t.Errorf("NaN momentum: %v", err)
	}
	if _, err := NewAdamW(0.1, -0.1); !errors.Is(err, ErrConfig) {
		t.Errorf("negative weight decay: %v", err)
	}
	a, _ := NewAdam(0.1)
	if err := a.Step(make([]float32, 3), make([]float32, 2)); !errors.Is(err, ErrShape) {
		t.Errorf("length mismatch: %v", err)
	}
	if err := a.Step(make([]float32, 3), make([]float32, 3)); err != nil {
		t.Fatal(err)
	}
	if err := a.Step(make([]float32, 4), make([]float32, 4)); !errors.Is(err, ErrShape) {
		t.Errorf("state for another size: %v", err)
	}
	a.Reset()
	if err := a.Step(make([]float32, 4), make([]float32, 4)); err != nil {
		t.Errorf("after Reset: %v", err)
	}
}
