package data

import (
	"math"
	"testing"
)

// The samplers' moments: Gamma(a, 1) has mean a and variance a; the normal
// has mean 0 and variance 1.
func TestSamplers(t *testing.T) {
	rng := seeded(2)
	const n = 40000
	moments := func(draw func() float64) (mean, variance float64) {
		var s, s2 float64
		for range n {
			v := draw()
			s += v
			s2 += v * v
		}
		mean = s / n
		return mean, s2/n - mean*mean
	}
	m, v := moments(func() float64 { return normal(rng) })
	if math.Abs(m) > 0.03 || math.Abs(v-1) > 0.03 {
		t.Errorf("normal: mean %.4f variance %.4f", m, v)
	}
	for _, a := range []float64{0.05, 0.5, 1, 3.5, 50} {
		m, v := moments(func() float64 { return math.Exp(logGamma(rng, a)) })
		if math.Abs(m-a) > 0.05*a+0.01 || math.Abs(v-a) > 0.1*a+0.01 {
			t.Errorf("Gamma(%v): mean %.4f variance %.4f, want %v and %v", a, m, v, a, a)
		}
	}
	p := make([]float64, 5)
	for _, alpha := range []float64{1e-3, 1, 1e3} {
		dirichlet(rng, alpha, p)
		sum := 0.0
		for _, x := range p {
			if !(x >= 0 && x <= 1) {
				t.Fatalf("Dir(%v) = %v", alpha, p)
			}
			sum += x
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("Dir(%v) sums to %v", alpha, sum)
		}
	}
}

func TestApportion(t *testing.T) {
	cases := []struct {
		w    []float64
		n    int
		want []int
	}{
		{[]float64{1, 1, 1}, 10, []int{4, 3, 3}},
		{[]float64{1, 2, 1}, 8, []int{2, 4, 2}},
		{[]float64{0, 1, 0}, 5, []int{0, 5, 0}},
		{[]float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, 3, []int{1, 1, 1}},
		{[]float64{0.5, 0.25, 0.25}, 1, []int{1, 0, 0}},
	}
	for _, c := range cases {
		got := apportion(c.w, c.n)
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("apportion(%v, %d) = %v, want %v", c.w, c.n, got, c.want)
				break
			}
		}
	}
}
