package initgain

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
)

// BarabasiAlbert is the preferential-attachment family of
// topology.BarabasiAlbert: m seed nodes, then every new node links to M
// existing ones chosen with probability proportional to degree. The
// graph is connected with M(n-M) edges, and its degree tail p(k) ~ k^-3
// makes ‖v_steady‖ depend on the hubs, whose degree grows as √n.
//
// Norm uses the expected degree moments from the rate equations. After
// τ = n-M attachments Σk = 2Mτ, and a node of degree k gains a link from
// the next node with probability k/(2τ), so S₂ = Σk² obeys
// S₂(τ+1) = S₂(τ)(1 + 1/τ) + M(M+1) (M(M+1) = E[(2k+1)Δk] summed plus the
// newcomer's M²), S₂(1) = M(M+1), whence S₂(τ) = M(M+1)·τ·H_τ (H the
// harmonic number). Then
//
//	‖v‖ ≈ √(S₂ + 2S₁ + n) / (S₁ + n),  S₁ = 2M(n-M),
//
// ∝ √(ln n / n): no pure power law; the apparent exponent over n = 32..4096
// is about 0.44 and tends to 1/2 only logarithmically.
type BarabasiAlbert struct {
	M int
}

// Norm returns the approximate ‖v_steady‖ of an n-node BA graph (n > M).
func (b BarabasiAlbert) Norm(n float64) (float64, error) {
	if err := checkN(n); err != nil {
		return 0, err
	}
	if b.M < 1 || float64(b.M) >= n {
		return 0, errorf("Barabási–Albert M = %d with n = %v, want 1 <= M < n", b.M, n)
	}
	m := float64(b.M)
	tau := n - m
	s1 := 2 * m * tau
	s2 := m * (m + 1) * tau * harmonic(tau)
	return math.Sqrt(s2+2*s1+n) / (s1 + n), nil
}

func (b BarabasiAlbert) String() string { return fmt.Sprintf("barabasi-albert(m=%d)", b.M) }

// harmonic returns H_x = ψ(x+1) + γ, the harmonic number extended to
// real x >= 0.
func harmonic(x float64) float64 {
	const eulerGamma = 0.57721566490153286060651209008240243
	return mathext.Digamma(x+1) + eulerGamma
}
