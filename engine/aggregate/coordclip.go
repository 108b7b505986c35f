package aggregate

import (
	"math"
	"slices"
)

// coordClip is a coordinate-wise ClippedGossip (ClipConfig.CoordRadius,
// issue #26 backdoors): at every coordinate i it clamps each kept
// neighbour's value into self's value plus or minus a radius, CoordRadius
// times the median over kept of |kept[k][i] - self[i]|. A minority
// cannot move a weight that the honest majority does not move: the
// median ignores the largest half of the moves, so where the honest
// neighbours agree with us (a backdoor's trigger sits where honest inputs
// are about 0, and the weights it feeds get no gradient from honest data)
// the radius is about 0 and the attacker's change there is cut away,
// however sparse and large. An L2 clip leaves such a change nearly whole.
// kept are copies the caller owns; their Params are replaced, never
// written in place. Nothing happens with fewer than 3 neighbours (a
// median of one or two is the attacker's own). No Outlier is reported:
// honest neighbours are clamped too, at the coordinates where they move
// more than the median, so being clamped says nothing about intent.
// With CoordFloor and self's Origin the radius at i is at least
// CoordFloor times our own step there, |self[i] - Origin[i]|.
func (c ClipConfig) coordClip(self Contribution, kept []Contribution) {
	if c.CoordRadius == 0 || len(kept) < 3 {
		return
	}
	var origin []float32 // nil: no floor
	if c.CoordFloor > 0 && len(self.Origin) == len(self.Params) {
		origin = self.Origin
	}
	n := len(self.Params)
	flat := make([]float32, len(kept)*n) // one allocation for every clamped copy
	out := make([][]float32, len(kept))
	for k := range kept {
		out[k] = flat[k*n : (k+1)*n : (k+1)*n]
		copy(out[k], kept[k].Params[:n])
	}
	dev := make([]float64, len(kept))
	for i, v := range self.Params {
		lowest, highest := math.Inf(1), 0.0
		for k := range kept {
			d := math.Abs(float64(kept[k].Params[i]) - float64(v))
			dev[k], lowest, highest = d, min(lowest, d), max(highest, d)
		}
		var floor float64
		if origin != nil {
			floor = c.CoordFloor * math.Abs(float64(v)-float64(origin[i]))
		}
		// The median lies between the lowest and highest move: when
		// either bound already keeps every value, nothing is clamped
		// here and the median (most of the work) is not needed.
		if floor >= highest || c.CoordRadius*lowest >= highest {
			continue
		}
		r := max(c.CoordRadius*medianOf(dev), floor)
		lo, hi := float32(float64(v)-r), float32(float64(v)+r)
		for k := range kept {
			// Plain comparisons, not min/max (their NaN rules cost
			// here, and screen let no NaN through).
			if x := out[k][i]; x < lo {
				out[k][i] = lo
			} else if x > hi {
				out[k][i] = hi
			}
		}
	}
	for k := range kept {
		kept[k].Params = out[k]
	}
}

// medianOf returns the median of xs (the mean of the middle two for an
// even count), sorting xs in place: by insertion for a neighbourhood's
// handful (it runs once per coordinate), slices.Sort beyond.
func medianOf(xs []float64) float64 {
	if len(xs) > 16 {
		slices.Sort(xs)
	} else {
		for i := 1; i < len(xs); i++ {
			for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
				xs[j], xs[j-1] = xs[j-1], xs[j]
			}
		}
	}
	m := len(xs) / 2
	if len(xs)%2 == 1 {
		return xs[m]
	}
	return (xs[m-1] + xs[m]) / 2
}
