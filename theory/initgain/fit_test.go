package initgain

import (
	"errors"
	"math"
	"testing"
)

func TestFitScalingRecoversPowerLaw(t *testing.T) {
	var ns, norms []float64
	for n := 32.0; n <= 4096; n *= 2 {
		ns = append(ns, n)
		norms = append(norms, 1.7*math.Pow(n, -0.42))
	}
	s, err := FitScaling(ns, norms)
	if err != nil || math.Abs(s.Alpha-0.42) > 1e-12 || relErr(s.Prefactor, 1.7) > 1e-12 {
		t.Errorf("fit = %+v, %v; want α 0.42, C 1.7", s, err)
	}
	// Least squares: a symmetric perturbation of the middle points leaves
	// the slope of the end points.
	s, _ = FitScaling([]float64{10, 100, 100, 1000}, []float64{0.1, 0.02, 0.05, 0.001})
	if math.Abs(s.Alpha-1) > 1e-12 {
		t.Errorf("fit α = %v, want 1", s.Alpha)
	}
}

func TestFitScalingErrors(t *testing.T) {
	for name, c := range map[string][2][]float64{
		"one point":  {{10}, {0.1}},
		"ragged":     {{10, 20}, {0.1}},
		"same n":     {{10, 10}, {0.1, 0.2}},
		"zero norm":  {{10, 20}, {0.1, 0}},
		"negative n": {{-10, 20}, {0.1, 0.2}},
		"NaN":        {{10, 20}, {math.NaN(), 0.2}},
	} {
		if _, err := FitScaling(c[0], c[1]); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
}
