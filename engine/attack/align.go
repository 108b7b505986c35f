package attack

import (
	"math"
	"slices"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

// alignMargin is how far above the rule's consensus bar AlignConsensus
// aims the push's cosine: the real neighbourhood's median is not the one
// the attacker estimates, and its own models move it.
const alignMargin = 0.1

// ConsensusBar returns the cosine rule's consensus check asks for
// (aggregate.ClipConfig.ConsensusCos) and whether it runs it: an attacker
// that knows the rule evades it with AlignConsensus.
func ConsensusBar(rule aggregate.Aggregator) (float64, bool) {
	r, ok := aggregate.RobustOf(rule)
	if !ok || r.Clip.ConsensusCos <= 0 {
		return 0, false
	}
	return r.Clip.ConsensusCos, true
}

// AlignConsensus tilts the push v towards what the neighbourhood agrees
// on, as little as the consensus check lets it: m is the coordinate-wise
// median of the differences from self of the contributions in nb that
// are not slots (the honest neighbours, or the attacker's stand-ins for
// them); v's component along m is raised until v's cosine with m is
// bar + alignMargin (a push already above it is left as it is), and v is
// scaled back to its length. What is left is the push the check lets
// through: it still carries all of v's part across m. It reports whether
// it could (false: no neighbour outside the slots, m zero, or v zero).
func AlignConsensus(v, self []float32, nb []aggregate.Contribution, slots []int, bar float64) bool {
	var others [][]float32
	for k, c := range nb {
		if !slices.Contains(slots, k) && len(c.Params) == len(self) {
			others = append(others, c.Params)
		}
	}
	if len(others) == 0 || len(v) != len(self) {
		return false
	}
	m := aggregate.MedianDifference(self, others)
	var mm float64
	for _, x := range m {
		mm += x * x
	}
	var vv, vm float64
	for i, x := range v {
		vv += float64(x) * float64(x)
		vm += float64(x) * m[i]
	}
	if mm == 0 || vv == 0 {
		return false
	}
	norm := math.Sqrt(mm)
	along := vm / norm                          // v's component along m
	across := math.Sqrt(max(vv-along*along, 0)) // and its length across
	want := math.Min(bar+alignMargin, 0.99)
	if along >= want*math.Sqrt(vv) {
		return true
	}
	need := want * across / math.Sqrt(1-want*want) // the component along m that gives cosine want
	scale := math.Sqrt(vv / (need*need + across*across))
	for i, x := range v {
		v[i] = float32(scale * (float64(x) + (need-along)*m[i]/norm))
	}
	return true
}
