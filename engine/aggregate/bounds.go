package aggregate

import (
	"fmt"
	"math"
	"slices"
)

// Bounds limits how much a neighbour's claims about itself can weigh.
// Every field a neighbour reports (DataSize, Period, DataConf, Hessian)
// is unverifiable: an attacker sets it to whatever maximises its weight.
// Unbounded, one liar takes the whole average (DataSize 2^40 gives it
// DecAvg weight ~1; Hessian entries of 1e30 do the same in DecHW; period
// 1 with c_d 1 doubles its FedLay weight over everyone else's). The
// bounds below cut each claim to what an honest neighbour plausibly has,
// measured against the closed neighbourhood (self included) or against
// our own value, so that a liar weighs at most a fixed multiple of an
// honest peer. Claims can only be lowered, never raised: a neighbour
// that under-reports only hurts itself. Self is never bounded.
type Bounds struct {
	// DataSizeFactor is k: a neighbour's DataSize counts as at most k
	// times the lower median DataSize of the closed neighbourhood (self
	// included, refused contributions not). Safe for honest peers: an
	// honest shard larger than k times the median is rare for the
	// partitions used (IID, shards, Dirichlet with alpha >= 0.1 on
	// neighbourhoods of 4 to 12) and is only capped, not refused, so it
	// still counts k times a typical peer. Bound: while at least half
	// the neighbourhood is honest the median is an honest size, so a
	// liar weighs at most k honest peers. 0 disables the bound.
	DataSizeFactor float64
	// MaxDataSize, when positive, is the task's declared largest shard:
	// a DataSize above it counts as MaxDataSize whatever the
	// neighbourhood says (it also holds when liars are the majority).
	// Safe for honest peers by definition of the task's maximum.
	MaxDataSize int
	// Period is always floored at our own period: a neighbour's T_j
	// counts as max(T_j, T_self), so its communication confidence c_c is
	// at most ours. Why this is safe: we consume at most one model per
	// neighbour per own round, so a neighbour publishing faster than we
	// aggregate gives us nothing fresher than our own rate; the MEP
	// further replaces the claimed period by the interval it observed
	// between the neighbour's models when that is longer (mep's
	// onModel). (No field: the floor has no parameter.)

	// DataConfFactor is r: a neighbour's data confidence c_d counts as at
	// most min(1, r * own c_d). c_d is computed privately from a label
	// histogram we never see, so any value in (0, 1] is plausible; the
	// cap keeps a liar's claimed perfect balance from weighing more than
	// r times ours. Safe for honest peers: a better-balanced honest
	// neighbour is still preferred, by up to r. 0 disables the bound.
	DataConfFactor float64
	// HessianFactor is c: every Hessian diagonal of the closed
	// neighbourhood (self included) is first scaled to unit mean (sum
	// equal to its length), then each neighbour's entry n is capped at c
	// times the lower median of entry n over the contributors that carry
	// a valid diagonal. Scaling removes the overall magnitude, which no
	// one can verify (1e30 then weighs like 1); the per-entry cap stops a
	// liar from concentrating its unit mass on a few parameters. Safe for
	// honest peers: honest diagonals are accumulated L2-normalised
	// Gauss-Newton diagonals (DecHW Eq. 5) of one model family, so their
	// relative sizes per entry stay within small factors, and DecHW only
	// uses the per-entry ratios across contributors. 0 disables both.
	HessianFactor float64
}

// DefaultBounds returns the bounds the robust rules use.
func DefaultBounds() Bounds {
	return Bounds{
		DataSizeFactor: 4, // a liar weighs at most 4 typical honest shards
		MaxDataSize:    0, // no task-declared maximum unless the task gives one
		DataConfFactor: 2, // a liar's c_d at most twice ours
		HessianFactor:  3, // per entry at most 3x the neighbourhood median
	}
}

// Validate requires finite, non-negative factors and MaxDataSize >= 0.
func (b Bounds) Validate() error {
	ok := func(x float64) bool { return x >= 0 && !math.IsInf(x, 1) }
	if !ok(b.DataSizeFactor) || !ok(b.DataConfFactor) || !ok(b.HessianFactor) || b.MaxDataSize < 0 {
		return fmt.Errorf("%w: bounds %+v", ErrConfig, b)
	}
	return nil
}

// apply bounds the claims of the accepted neighbours work[idx[k]] (copies
// the caller owns) against self, and scales self's Hessian like the
// others'. Contributions whose claims a rule would refuse anyway
// (negative DataSize, c_d out of range, a bad Hessian) are left for that
// rule. It returns how many neighbours had a claim cut.
func (b Bounds) apply(self *Contribution, work []Contribution, idx []int) int {
	cut := make([]bool, len(idx))
	if capSize, ok := b.dataSizeCap(self, work, idx); ok {
		for k, j := range idx {
			if work[j].DataSize > capSize {
				work[j].DataSize, cut[k] = capSize, true
			}
		}
	}
	if self.Period > 0 {
		for k, j := range idx {
			if c := &work[j]; c.Period > 0 && c.Period < self.Period {
				c.Period, cut[k] = self.Period, true
			}
		}
	}
	if b.DataConfFactor > 0 && self.DataConf > 0 && self.DataConf <= 1 {
		capConf := min(1, b.DataConfFactor*self.DataConf)
		for k, j := range idx {
			if c := &work[j]; c.DataConf > capConf && c.DataConf <= 1 {
				c.DataConf, cut[k] = capConf, true
			}
		}
	}
	if b.HessianFactor > 0 {
		b.boundHessians(self, work, idx, cut)
	}
	n := 0
	for _, c := range cut {
		if c {
			n++
		}
	}
	return n
}

// dataSizeCap is the largest DataSize a neighbour may count with; ok is
// false when no bound applies.
func (b Bounds) dataSizeCap(self *Contribution, work []Contribution, idx []int) (int, bool) {
	capSize, ok := math.MaxInt, false
	if b.MaxDataSize > 0 {
		capSize, ok = b.MaxDataSize, true
	}
	if b.DataSizeFactor > 0 {
		sizes := make([]int, 0, len(idx)+1)
		sizes = append(sizes, max(self.DataSize, 0))
		for _, j := range idx {
			sizes = append(sizes, max(work[j].DataSize, 0))
		}
		slices.Sort(sizes)
		med := float64(sizes[(len(sizes)-1)/2]) // lower median: two peers give the smaller
		if c := b.DataSizeFactor * med; c < float64(capSize) {
			capSize, ok = int(c), true
		}
	}
	return capSize, ok
}

// boundHessians scales every valid diagonal (self's included) to unit
// mean and caps the neighbours' entries at HessianFactor times the
// per-entry lower median. Self without a valid diagonal: nothing to do
// (DecHW then ignores the Hessians).
func (b Bounds) boundHessians(self *Contribution, work []Contribution, idx []int, cut []bool) {
	if checkHessian(self.Params, self.Hessian) != nil {
		return
	}
	self.Hessian = unitMean(self.Hessian)
	valid := make([]int, 0, len(idx)) // positions k in idx with a valid diagonal
	for k, j := range idx {
		if c := &work[j]; checkHessian(c.Params, c.Hessian) == nil {
			c.Hessian = unitMean(c.Hessian)
			valid = append(valid, k)
		}
	}
	col := make([]float32, 0, len(valid)+1)
	for n := range self.Hessian {
		col = append(col[:0], self.Hessian[n])
		for _, k := range valid {
			col = append(col, work[idx[k]].Hessian[n])
		}
		slices.Sort(col)
		limit := float32(b.HessianFactor) * col[(len(col)-1)/2]
		for _, k := range valid {
			if h := work[idx[k]].Hessian; h[n] > limit {
				h[n], cut[k] = limit, true
			}
		}
	}
}

// unitMean returns a copy of h scaled so that its mean is 1 (an all-zero
// h stays zero). Entries are finite and non-negative (checkHessian).
func unitMean(h []float32) []float32 {
	var sum float64
	for _, v := range h {
		sum += float64(v)
	}
	out := make([]float32, len(h))
	if sum == 0 {
		return out
	}
	scale := float64(len(h)) / sum
	for i, v := range h {
		out[i] = float32(float64(v) * scale)
	}
	return out
}
