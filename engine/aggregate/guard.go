package aggregate

import (
	"math"
	"slices"
)

// stepFloor is the reference distance's floor (ClipConfig.StepFloor):
// StepFloor times self's last step, 0 when off or without an Origin.
func (c ClipConfig) stepFloor(self Contribution) float64 {
	if c.StepFloor == 0 || len(self.Origin) != len(self.Params) {
		return 0
	}
	return c.StepFloor * distance(self.Origin, self.Params)
}

// medianCeiling is what the median floor may use of the median
// (ClipConfig.MedianCap): unbounded without a cap, MedianCap times our
// own last step with one, and 0 (no median floor) without an Origin.
func (c ClipConfig) medianCeiling(self Contribution) float64 {
	if c.MedianCap == 0 {
		return math.Inf(1)
	}
	if len(self.Origin) != len(self.Params) {
		return 0
	}
	return c.MedianCap * distance(self.Origin, self.Params)
}

// winsorise clamps, in kept (copies the caller owns; their Params are
// replaced, never written in place), every neighbour's model coordinate
// by coordinate into [b-th smallest, b-th largest] of self's and kept's
// values there (ClipConfig.Winsorise), and returns an Outlier (indices
// into kept) for each neighbour clamped at more than the average share
// of coordinates. Nothing happens with fewer than 2b+2 models.
func (c ClipConfig) winsorise(self Contribution, kept []Contribution) []Outlier {
	b, m := c.Winsorise, len(kept)+1
	if b == 0 || m < 2*b+2 {
		return nil
	}
	out := make([][]float32, len(kept))
	for k := range kept {
		out[k] = slices.Clone(kept[k].Params[:len(self.Params)])
	}
	clamped := make([]int, len(kept))
	col := make([]float32, 0, m)
	for i, v := range self.Params {
		col = append(col[:0], v)
		for k := range kept {
			col = append(col, kept[k].Params[i])
		}
		slices.Sort(col)
		lo, hi := col[b], col[m-1-b]
		for k := range kept {
			switch x := out[k][i]; {
			case x < lo:
				out[k][i], clamped[k] = lo, clamped[k]+1
			case x > hi:
				out[k][i], clamped[k] = hi, clamped[k]+1
			}
		}
	}
	var rep []Outlier
	expect := float64(2*b) / float64(m)
	for k := range kept {
		kept[k].Params = out[k]
		share := float64(clamped[k]) / float64(max(len(self.Params), 1))
		if s := (share - expect) / (1 - expect); s > 0 {
			rep = append(rep, Outlier{Index: k, From: kept[k].From, Severity: s, Action: OutlierCut})
		}
	}
	return rep
}

// mergeOutliers adds more to have, keeping one Outlier per Index: the
// one with the larger Severity.
func mergeOutliers(have, more []Outlier) []Outlier {
	for _, o := range more {
		i := slices.IndexFunc(have, func(h Outlier) bool { return h.Index == o.Index })
		switch {
		case i < 0:
			have = append(have, o)
		case o.Severity > have[i].Severity:
			have[i] = o
		}
	}
	return have
}
