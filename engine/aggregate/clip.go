package aggregate

import (
	"fmt"
	"math"
	"slices"
)

// ClipConfig configures self-centred clipping (ClippedGossip: He,
// Karimireddy and Jaggi, "Byzantine-robust decentralized learning via
// ClippedGossip", 2022). Each accepted neighbour's model x_j is replaced
// by x_self + clip(x_j - x_self, tau), clip scaling a difference longer
// than tau (L2) down to length tau. Whatever weights the inner rule then
// gives, the aggregate moves at most tau away from our own model per
// round (it is a convex combination of points within tau of x_self), and
// a liar's pull is at most its weight times tau: a model of 3e38 moves
// us no further than an honest neighbour at distance tau.
//
// tau is adaptive: Scale times the Quantile-quantile of the accepted
// neighbours' distances to x_self. With a Byzantine minority below
// 1 - Quantile of the neighbourhood the quantile is an honest distance,
// so tau follows the honest spread: large while models are far apart
// early in training, small once they agree.
type ClipConfig struct {
	// Quantile in (0, 1] picks the reference distance: the distance of
	// the ceil(Quantile*k)-th closest of the k accepted neighbours.
	Quantile float64
	// Scale > 0 multiplies the reference distance.
	Scale float64
}

// DefaultClipConfig returns the median distance: the nearer half of the
// neighbours passes unchanged, the farther half (where any liar is) is
// cut to the typical honest distance. Scale 2 was measured as too loose:
// in peer/learn's TestSyncByzantineNeighbours (10 peers, 2 sending
// sign-flipped models with maximal claims) honest accuracy was 0.75 with
// scale 2 against 0.93 with scale 1 (0.98 without attack, 0.25 for plain
// FedLay). Safe for honest peers: a farther honest neighbour still
// counts, only its pull is limited to the typical distance, which slows
// consensus but does not stop it (ClippedGossip's analysis).
func DefaultClipConfig() ClipConfig {
	return ClipConfig{
		Quantile: 0.5, // the median: honest while liars are a minority
		Scale:    1,   // farther neighbours pulled in to the median distance
	}
}

// Validate requires Quantile in (0, 1] and a finite, positive Scale.
func (c ClipConfig) Validate() error {
	if !(c.Quantile > 0 && c.Quantile <= 1) || !(c.Scale > 0) || math.IsInf(c.Scale, 1) {
		return fmt.Errorf("%w: clipping quantile %v scale %v", ErrConfig, c.Quantile, c.Scale)
	}
	return nil
}

// clip replaces, in work (copies the caller owns), the parameters of
// each accepted neighbour farther than tau from self by the clipped
// point, and appends an Outlier for each to rep (only when tau > 0: with
// tau 0 most neighbours equal self and there is nothing to compare with).
func (c ClipConfig) clip(self []float32, work []Contribution, idx []int, rep *Report) {
	if len(idx) == 0 {
		return
	}
	dist := make([]float64, len(idx))
	for k, j := range idx {
		dist[k] = distance(self, work[j].Params)
	}
	sorted := slices.Clone(dist)
	slices.Sort(sorted)
	pos := int(math.Ceil(c.Quantile*float64(len(sorted)))) - 1
	tau := c.Scale * sorted[min(max(pos, 0), len(sorted)-1)]
	for k, j := range idx {
		if dist[k] <= tau {
			continue
		}
		work[j].Params = pullTowards(self, work[j].Params, tau/dist[k])
		if tau > 0 {
			rep.Outliers = append(rep.Outliers, Outlier{Index: j, From: work[j].From, Severity: 1 - tau/dist[k]})
		}
	}
}

// distance is the L2 distance of a and b (same length), in float64 so
// that float32 values near the maximum do not overflow.
func distance(a, b []float32) float64 {
	var ss float64
	b = b[:len(a)]
	for i, v := range a {
		d := float64(b[i]) - float64(v)
		ss += d * d
	}
	return math.Sqrt(ss)
}

// pullTowards returns self + s*(x - self) as a new vector, s in [0, 1).
func pullTowards(self, x []float32, s float64) []float32 {
	out := make([]float32, len(self))
	x = x[:len(self)]
	for i, v := range self {
		out[i] = float32(float64(v) + s*(float64(x[i])-float64(v)))
	}
	return out
}
