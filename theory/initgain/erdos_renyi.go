package initgain

import (
	"fmt"
	"math"
)

// ErdosRenyi is the G(n, p) family with mean degree MeanDegree = p·(n-1)
// (> 1, so a giant component exists), restricted to its giant component,
// the network a gossip count of n sees. Degrees are Poisson(c), c =
// MeanDegree; a node of degree k is in the giant component with
// probability 1 - u^k, u the smallest root of u = exp(c(u-1)), so within
// it, with S = 1 - u,
//
//	⟨k⟩ = c(1-u²)/S,  ⟨k²⟩ = (c + c² - u²(c + c²u))/S,
//
// and Norm = √(⟨(k+1)²⟩/n)/⟨k+1⟩ = n^(-1/2)·const: the exponent is 1/2.
type ErdosRenyi struct {
	MeanDegree float64
}

// Norm returns the approximate ‖v_steady‖ of the n-node giant component.
func (e ErdosRenyi) Norm(n float64) (float64, error) {
	if err := checkN(n); err != nil {
		return 0, err
	}
	c := e.MeanDegree
	if math.IsNaN(c) || math.IsInf(c, 0) {
		return 0, errorf("mean degree %v", c)
	}
	if c <= 1 {
		return 0, wrapf(ErrNoGiantComponent, "Erdős–Rényi mean degree %v <= 1", c)
	}
	u, err := poissonExtinction(c)
	if err != nil {
		return 0, err
	}
	s := 1 - u
	k1 := c * (1 - u*u) / s
	k2 := (c + c*c - u*u*(c+c*c*u)) / s
	return normFromMoments(n, k1+1, k2+2*k1+1), nil
}

func (e ErdosRenyi) String() string { return fmt.Sprintf("erdos-renyi(c=%g)", e.MeanDegree) }

// poissonExtinction returns the smallest root u of u = exp(c(u-1)) for
// c > 1 by Newton's method from 0: f(u) = u - exp(c(u-1)) is concave
// with f(0) < 0, so the iterates rise monotonically to the root.
func poissonExtinction(c float64) (float64, error) {
	u := 0.0
	for range 200 {
		e := math.Exp(c * (u - 1))
		step := (u - e) / (1 - c*e)
		u -= step
		if math.Abs(step) < 1e-15 {
			return u, nil
		}
	}
	return 0, wrapf(ErrNotConverged, "giant component of Poisson(%v)", c)
}
