package aggregate

// Copies of our own model (ClipConfig.CopyBelow, the lab's "copyN-X").
// Why (issue #26): an attacker that finds no push the rule accepts
// (the adaptive search against the consensus check, untilted: the lab's
// align=0) sends the receiver's own model back, and a copy passes every
// check: it sits at distance 0, inside every radius, with no direction
// to judge. It adds nothing to the average but its weight, which slows
// the honest neighbours' pull, and it moves the medians the checks
// compare with towards our own model: the behind check's median along
// our step moves ahead, and honest neighbours then sit behind it and are
// charged (MNIST, f = 0.2, seed 2, one order: 17 honest links cut, 88%
// of the attackers' models exact copies). Honest neighbours are not
// copies: in the attack lab without attack (30 peers, seeds 1 and 2,
// one order, about 8,500 judgements per data set) the closest lay 0.87
// (MNIST) and 0.78 (Fashion-MNIST) of our own step away, 1% of them
// within 1.0 and 0.95.

// copyPrefix marks the attack lab's "copyN-X": "clipped-X" with
// CopyBelow at N/100 where the caller's config leaves it unset.
const copyPrefix = "copy"

// maxCopy bounds N in "copyN-X" (CopyBelow < 1: honest neighbours lie
// about one own step away).
const maxCopy = 99

// CopyRadius is the distance from self within which the rule treats a
// neighbour's model as a copy of ours (CopyBelow times our last step;
// 0: none, without CopyBelow or an Origin). An attacker that knows the
// rule keeps its near-copies beyond it.
func (c ClipConfig) CopyRadius(self Contribution) float64 {
	if c.CopyBelow <= 0 || len(self.Origin) != len(self.Params) {
		return 0
	}
	return c.CopyBelow * distance(self.Origin, self.Params)
}

// copiesAndReference marks the copies among the distances (closer than
// CopyRadius) and returns them with reference's far set and reference
// distance, taken without the copies: a copy at distance 0 would
// otherwise pull the low quantile down (reference collapse). Copies are
// never far. With every neighbour a copy the reference is the step
// floor.
func (c ClipConfig) copiesAndReference(self Contribution, dist []float64) (copied, far []bool, ref float64) {
	copied = make([]bool, len(dist))
	at := c.CopyRadius(self)
	var judged []float64
	var pos []int
	for k, d := range dist {
		if d < at {
			copied[k] = true
			continue
		}
		judged = append(judged, d)
		pos = append(pos, k)
	}
	far = make([]bool, len(dist))
	if len(judged) == 0 {
		return copied, far, c.stepFloor(self)
	}
	farJudged, ref := c.reference(judged, c.stepFloor(self), c.medianCeiling(self))
	for i, k := range pos {
		far[k] = farJudged[i]
	}
	return copied, far, ref
}
