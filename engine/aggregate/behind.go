package aggregate

import (
	"slices"
)

// behindSeverities returns, for each accepted neighbour idx[k], the
// severity of how far its model sits behind the neighbourhood along our
// own step (ClipConfig.Behind), or nil when the check is off or there is
// no step to measure along (no Origin, a zero step, a zero reference
// distance).
//
// A neighbour's position along our step is the projection of its
// difference from our Origin on our step's direction, p_j = <x_j -
// origin, u>, u = (self - origin)/|self - origin|. Its reach behind is
// (median_k p_k - p_j)/ref: how far behind the neighbours' lower median
// position it is, in reference distances (ref: the clipping reference,
// see ClipConfig). The median is over the neighbours not far (beyond the
// rejection radius): a scaled or noised model's position is anywhere, and
// counted it would move the median and with it every honest neighbour's
// reach. The result is reach/Behind, not capped (the caller caps the
// severity at 1: BehindLeave halves it first), and 0 for a neighbour at
// or ahead of the median.
func (c ClipConfig) behindSeverities(self Contribution, work []Contribution, idx []int, far []bool, ref float64) []float64 {
	origin := self.Origin
	if c.Behind == 0 || len(idx) == 0 || len(origin) != len(self.Params) || !(ref > 0) {
		return nil
	}
	step := distance(origin, self.Params)
	if !(step > 0) {
		return nil
	}
	pos := make([]float64, len(idx))
	var sorted []float64 // the positions of the neighbours not far
	for k, j := range idx {
		pos[k] = projection(origin, self.Params, work[j].Params) / step
		if !far[k] {
			sorted = append(sorted, pos[k])
		}
	}
	if len(sorted) == 0 {
		return nil
	}
	slices.Sort(sorted)
	median := sorted[(len(sorted)-1)/2]
	sev := make([]float64, len(idx))
	for k, p := range pos {
		if reach := (median - p) / ref; reach > 0 {
			sev[k] = reach / c.Behind
		}
	}
	return sev
}

// projection is <x - origin, self - origin>, in float64.
func projection(origin, self, x []float32) float64 {
	var dot float64
	x = x[:len(origin)]
	self = self[:len(origin)]
	for i, o := range origin {
		dot += (float64(x[i]) - float64(o)) * (float64(self[i]) - float64(o))
	}
	return dot
}
