package initgain

import "math"

// Quadrature over a degree range: sums Σ_{k=a}^{b} f(k) are evaluated as
// Σ_g w_g·f(k_g) on a fixed grid, so several sums (and sums of sums) can
// share precomputed values of f.
const (
	gridExact     = 512 // k = a .. a+gridExact-1 taken one by one
	gridIntervals = 800 // Simpson intervals (even) in ln k beyond that
)

// degreeGrid returns nodes k_g and weights w_g with Σ_g w_g f(k_g) ≈
// Σ_{k=a}^{b} f(k) for f smooth on the scale of k beyond a+gridExact:
// the first gridExact integers exactly, the rest as ∫_{A-½}^{b+½} f by
// composite Simpson in ln k (the midpoint rule's error, f”/24 per unit,
// is negligible there).
func degreeGrid(a, b int) (k, w []float64) {
	last := min(b, a+gridExact-1)
	for j := a; j <= last; j++ {
		k = append(k, float64(j))
		w = append(w, 1)
	}
	if last == b {
		return k, w
	}
	lo, hi := math.Log(float64(last)+0.5), math.Log(float64(b)+0.5)
	h := (hi - lo) / gridIntervals
	for i := 0; i <= gridIntervals; i++ {
		c := 2.0
		switch {
		case i == 0 || i == gridIntervals:
			c = 1
		case i%2 == 1:
			c = 4
		}
		x := math.Exp(lo + float64(i)*h)
		k = append(k, x)
		w = append(w, c*h/3*x) // dk = k·d(ln k)
	}
	return k, w
}
