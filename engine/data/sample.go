package data

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/peerlearn/peerlearn/internal/detmath"
)

// Samplers over a caller's seeded rng. All arithmetic is platform-exact
// (log and exp from internal/detmath, every product that feeds an addition
// wrapped in float64(...) against FMA fusion), so a seed gives the same
// draws everywhere.

// normal draws from N(0, 1) by Marsaglia's polar method.
func normal(rng *rand.Rand) float64 { return detmath.Normal(rng.Float64) }

// logGamma draws log(G) for G ~ Gamma(a, 1), a > 0, by Marsaglia and
// Tsang's method ("A simple method for generating gamma variables", 2000).
// Working in logs keeps tiny shapes (a << 1, where G underflows to 0)
// usable: for a < 1, G = Gamma(a+1) * U^(1/a).
func logGamma(rng *rand.Rand, a float64) float64 {
	if a < 1 {
		u := 1 - rng.Float64() // (0, 1]: log stays finite
		return logGamma(rng, a+1) + detmath.Log(u)/a
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		var x, v float64
		for {
			x = normal(rng)
			v = 1 + float64(c*x)
			if v > 0 {
				break
			}
		}
		v = v * v * v
		u := rng.Float64()
		x2 := x * x
		if u < 1-float64(0.0331*x2*x2) {
			return detmath.Log(d) + detmath.Log(v)
		}
		if detmath.Log(u) < float64(0.5*x2)+float64(d*(1-v+detmath.Log(v))) {
			return detmath.Log(d) + detmath.Log(v)
		}
	}
}

// dirichlet draws p ~ Dir(alpha, ..., alpha) of length k into p.
func dirichlet(rng *rand.Rand, alpha float64, p []float64) {
	m := math.Inf(-1)
	for i := range p {
		p[i] = logGamma(rng, alpha)
		m = max(m, p[i])
	}
	if math.IsInf(m, -1) { // only for alpha near the float64 minimum: stay defined
		clear(p)
		p[0] = 1
		return
	}
	sum := 0.0
	for i := range p {
		p[i] = detmath.Exp(p[i] - m)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
}

// apportion splits n items in proportion to weights (non-negative, not all
// zero) by the largest-remainder method: counts sum to n exactly, ties go
// to the lower index.
func apportion(weights []float64, n int) []int {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	counts := make([]int, len(weights))
	frac := make([]float64, len(weights))
	left := n
	for i, w := range weights {
		q := w / total * float64(n)
		f := math.Floor(q)
		counts[i] = int(f)
		frac[i] = q - f
		left -= counts[i]
	}
	order := make([]int, len(weights))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case frac[a] > frac[b]:
			return -1
		case frac[a] < frac[b]:
			return 1
		}
		return 0
	})
	for i := 0; left > 0; i = (i + 1) % len(order) {
		counts[order[i]]++
		left--
	}
	// Rounding can, in principle, push the floors past n: take back from
	// the smallest remainders.
	for i := len(order) - 1; left < 0; i = (i - 1 + len(order)) % len(order) {
		if counts[order[i]] > 0 {
			counts[order[i]]--
			left++
		}
	}
	return counts
}
