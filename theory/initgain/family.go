package initgain

import (
	"fmt"
	"math"
)

// Family is a topology family with a closed-form approximation of
// ‖v_steady‖ as a function of the node count n (Sec. 4.4 of the paper:
// with the formation principle known, an estimate of n suffices).
type Family interface {
	// Norm returns the approximate ‖v_steady‖ of an n-node network.
	Norm(n float64) (float64, error)
	String() string
}

// ApproxNorm returns f.Norm(nEstimate) after checking nEstimate.
func ApproxNorm(nEstimate float64, f Family) (float64, error) {
	if err := checkN(nEstimate); err != nil {
		return 0, err
	}
	if f == nil {
		return 0, errorf("nil family")
	}
	return f.Norm(nEstimate)
}

// ApproxGain returns the approximate init gain 1/‖v_steady‖ of an
// nEstimate-node network of family f (nEstimate from gossip, PushSum).
// The estimate need not be exact: the paper (Fig. 7a) finds training
// insensitive to substantial over- or under-estimates.
func ApproxGain(nEstimate float64, f Family) (float64, error) {
	nrm, err := ApproxNorm(nEstimate, f)
	if err != nil {
		return 0, err
	}
	return 1 / nrm, nil
}

// normFromMoments is ‖v_steady‖ ≈ √(⟨(k+1)²⟩/n)/⟨k+1⟩, the degree
// formula of GainFromDegrees with sums replaced by n times the means of
// the family's degree distribution.
func normFromMoments(n, m1, m2 float64) float64 {
	return math.Sqrt(m2/n) / m1
}

// Regular is the near-regular family: random regular graphs, rings,
// tori, complete graphs, FedLay. ‖v_steady‖ = 1/√n, exactly for any
// regular graph (the lower bound, by Cauchy–Schwarz).
type Regular struct{}

// Norm returns 1/√n.
func (Regular) Norm(n float64) (float64, error) {
	if err := checkN(n); err != nil {
		return 0, err
	}
	return 1 / math.Sqrt(n), nil
}

func (Regular) String() string { return "regular" }

// ScalingLaw is the paper's fitted form ‖v_steady‖ = C·n^(-Alpha)
// (Fig. 8: "the value of ‖v_steady‖ is simply n^(-α)"); Prefactor C = 0
// stands for 1. FitScaling fits one to a sweep (scenario vsteady).
type ScalingLaw struct {
	Alpha, Prefactor float64
}

// Norm returns C·n^(-Alpha).
func (s ScalingLaw) Norm(n float64) (float64, error) {
	if err := checkN(n); err != nil {
		return 0, err
	}
	c := s.Prefactor
	if c == 0 {
		c = 1
	}
	if !(c > 0) || math.IsInf(c, 0) || math.IsNaN(s.Alpha) || math.IsInf(s.Alpha, 0) {
		return 0, errorf("scaling law %v", s)
	}
	return c * math.Pow(n, -s.Alpha), nil
}

func (s ScalingLaw) String() string {
	return fmt.Sprintf("scaling(alpha=%g, C=%g)", s.Alpha, s.Prefactor)
}
