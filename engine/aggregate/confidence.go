package aggregate

import (
	"fmt"
	"math"
)

// KLFromUniform returns DKL(P || U) in nats, P the label distribution of
// the histogram hist (counts per class) and U the uniform distribution
// over len(hist) classes: sum_i p_i ln(p_i * K). Classes with no samples
// contribute 0. It is 0 for a balanced histogram and ln K when every
// sample has one label.
func KLFromUniform(hist []int) (float64, error) {
	var total int
	for i, n := range hist {
		if n < 0 {
			return 0, fmt.Errorf("%w: class %d has count %d", ErrLabelHist, i, n)
		}
		total += n
	}
	if total == 0 {
		return 0, fmt.Errorf("%w: no samples in %d classes", ErrLabelHist, len(hist))
	}
	k := float64(len(hist))
	var kl float64
	for _, n := range hist {
		if n == 0 {
			continue
		}
		p := float64(n) / float64(total)
		kl += p * math.Log(p*k)
	}
	return max(kl, 0), nil // rounding can leave -1e-16 for a uniform P
}

// DataConfidence is FedLay's data-divergence confidence
// c_d = 1/exp(DKL(D_loc || D_std)) with D_std uniform: a value in (0, 1],
// 1 for balanced local data, 1/K for a single-label data set.
func DataConfidence(hist []int) (float64, error) {
	kl, err := KLFromUniform(hist)
	if err != nil {
		return 0, err
	}
	return math.Exp(-kl), nil
}

// CommConfidence is FedLay's communication confidence c_c = 1/T, T the
// exchange period in ticks; 0 for a non-positive period.
func CommConfidence(period int) float64 {
	if period <= 0 {
		return 0
	}
	return 1 / float64(period)
}

// Confidence is FedLay's overall confidence of one peer,
// c = a_d c_d/max(c_d) + a_c c_c/max(c_c), given its data confidence cd,
// its period, and the largest data confidence maxCd and shortest period
// minPeriod (largest c_c) over the aggregating peer's closed
// neighbourhood. Inputs out of range give 0.
func (c FedLayConfig) Confidence(cd, maxCd float64, period, minPeriod int) float64 {
	if !(cd > 0 && maxCd > 0) || period <= 0 || minPeriod <= 0 {
		return 0
	}
	return c.DataWeight*cd/maxCd + c.CommWeight*CommConfidence(period)/CommConfidence(minPeriod)
}
