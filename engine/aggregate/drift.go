package aggregate

import (
	"fmt"
	"math"
)

// DriftConfig turns on Reputation's drift test (issue #26, the
// sub-threshold drift): a cumulative sum (Page's CUSUM) per neighbour of
// how far its model pulls back against our own step, round after round,
// beyond what an honest neighbour does on average.
//
// Why: every check of the clipping rule looks at one round. An attacker
// that knows the thresholds (the rule is open source) sends, every round,
// a model just inside all of them: cosine just above MinCosine, just
// under the behind check's tolerance, inside the radius. It is used at
// full weight and never charged, and its small pulls all go the same
// way, so they add up (the lab's AttackAdaptive: in a probe of its
// search at f = 0.2, the direction check bound it in about half of the
// rounds, the behind check in a third, the radius in a tenth). An honest
// neighbour crosses those thresholds now and then, on its data's whims,
// but not every round: its cosine with our step is about 0 on average
// (5-95%: -0.12 to 0.03 in the lab without attack) and its reach behind
// 0 (99%: 0.14 reference distances). A sum of each round's excess over
// an allowance that honest neighbours stay under on average grows for
// the one that sits near a threshold every round and stays near 0 for
// the others: the history is what tells them apart (Karimireddy et al.,
// "Learning from History for Byzantine Robust Optimization", 2021:
// time-coupled attacks defeat any rule that looks at one round alone).
// An attacker that knows this test too can still pull, but only by the
// allowance on average, not by the threshold.
type DriftConfig struct {
	// Limit > 0 turns the test on: a neighbour whose sum exceeds it is
	// charged Penalty that round, as an outlier of severity 1. 0: off.
	Limit float64
	// Cosine >= 0 is the allowance on the direction check's cosine: a
	// round adds -cosine - Cosine to the neighbour's cosine sum (which
	// never falls below 0).
	Cosine float64
	// Behind >= 0 is the allowance on the behind check's reach (reference
	// distances): a round adds reach - Behind to its behind sum.
	Behind float64
}

// DefaultDriftConfig: cosine allowance 0.15 (honest neighbours' 5%
// quantile is -0.12; the direction check refuses below -0.3), behind
// allowance 0.1 reference distances (honest median 0, 99% 0.14; the
// behind check charges from 0.2), limit 0.6: a neighbour at the direction
// threshold every round is charged from its 5th round, one at the behind
// check's tolerance from its 7th, and an honest neighbour's rare round at
// a threshold (cosine -0.3 adds 0.15; reach 0.3 adds 0.2) is paid back by
// the next ordinary rounds before it adds up.
func DefaultDriftConfig() DriftConfig {
	return DriftConfig{Limit: 0.6, Cosine: 0.15, Behind: 0.1}
}

// Validate requires finite, non-negative values.
func (c DriftConfig) Validate() error {
	for _, v := range []float64{c.Limit, c.Cosine, c.Behind} {
		if !(v >= 0) || math.IsInf(v, 1) {
			return fmt.Errorf("%w: drift %+v", ErrConfig, c)
		}
	}
	return nil
}

// driftSums is one neighbour's two sums.
type driftSums struct{ cosine, behind float64 }

// after returns the sums after a round in which p was measured.
func (c DriftConfig) after(s driftSums, p Pull) driftSums {
	if p.HasCosine {
		s.cosine = max(0, s.cosine-p.Cosine-c.Cosine)
	}
	if p.HasBehind {
		s.behind = max(0, s.behind+p.Behind-c.Behind)
	}
	return s
}

// over reports whether s exceeds the limit.
func (c DriftConfig) over(s driftSums) bool {
	return c.Limit > 0 && (s.cosine > c.Limit || s.behind > c.Limit)
}
