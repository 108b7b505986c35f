package aggregate

import (
	"math"
	"slices"
)

// The consensus check (ClipConfig.ConsensusCos, the lab's "consN-X"):
// a model whose difference from ours points against what the
// neighbourhood agrees on is left out. Why (issue #26): adaptive
// attackers that send their models already cut back to tau (the lab's
// cutback=1) are used at full weight, each round, and push the way that
// undoes the others' training: on a non-IID shard our own step cannot
// tell that from an honest neighbour's knowledge of classes we lack,
// but the honest neighbours carry that knowledge and the push runs
// against it. "What the neighbourhood agrees on" is the
// coordinate-wise median of the neighbours' differences from our model,
// which attackers holding under half of them cannot set.

// consensusSeverities returns, per idx position, how far the cosine of
// the neighbour's difference from ours with the coordinate-wise median
// of the differences fell below ConsensusCos (0: not below, or not
// judged), as (ConsensusCos - cos) / (1 + ConsensusCos), or nil when the
// check is off or fewer than DirectionWitnesses neighbours (far ones
// excluded) are there to agree. Honest neighbours sit well above 0: in
// the attack lab without attack (30 peers, dirichlet 1, seed 1, one
// order, about 4,000 judgements per data set) 0.1% of their cosines
// were below 0.25 (MNIST) and 0.19 (Fashion-MNIST), 1% below 0.35 and
// 0.30, the median about 0.7.
func (c ClipConfig) consensusSeverities(self Contribution, work []Contribution, idx []int, far []bool) []float64 {
	if c.ConsensusCos <= 0 {
		return nil
	}
	var near [][]float32
	for k, j := range idx {
		if !far[k] {
			near = append(near, work[j].Params)
		}
	}
	if len(near) < max(c.DirectionWitnesses, 1) {
		return nil
	}
	med := MedianDifference(self.Params, near)
	var mm float64
	for _, v := range med {
		mm += v * v
	}
	if mm == 0 {
		return nil
	}
	out := make([]float64, len(idx))
	for k, j := range idx {
		if far[k] {
			continue
		}
		var dot, dd float64
		for i, s := range self.Params {
			d := float64(work[j].Params[i]) - float64(s)
			dot, dd = dot+d*med[i], dd+d*d
		}
		if dd == 0 {
			continue
		}
		if cos := dot / math.Sqrt(dd*mm); cos < c.ConsensusCos {
			out[k] = (c.ConsensusCos - cos) / (1 + c.ConsensusCos)
		}
	}
	return out
}

// consensusPrefix marks the attack lab's "consN-X": "clipped-X" with
// ConsensusCos at N/100 (N 1 to 99) where the caller's config leaves it
// unset. Like "mincosN-X" the lab's, not in Names.
const consensusPrefix = "cons"

// maxConsensus bounds N in "consN-X" (ConsensusCos < 1).
const maxConsensus = 99

// MedianDifference is the coordinate-wise median of the models'
// differences from self (the mean of the middle two for an even count;
// models of self's length, at least one): what a neighbourhood agrees
// on, moved by a minority only by rank.
func MedianDifference(self []float32, models [][]float32) []float64 {
	med := make([]float64, len(self))
	col := make([]float64, len(models))
	for i, s := range self {
		for n, p := range models {
			col[n] = float64(p[i]) - float64(s)
		}
		slices.Sort(col)
		h := len(col) / 2
		if len(col)%2 == 1 {
			med[i] = col[h]
		} else {
			med[i] = (col[h-1] + col[h]) / 2
		}
	}
	return med
}
