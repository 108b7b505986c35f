package attack

import "github.com/peerlearn/peerlearn/engine/aggregate"

// copyMargin is how far beyond the rule's copy radius an attacker that
// knows it places a near-copy of the receiver's model.
const copyMargin = 1.1

// BeyondCopies returns the smallest distance from self at which rule
// does not treat a model as a copy of self's (aggregate.ClipConfig.
// CopyBelow), with copyMargin, or 0 where it leaves no copies out: an
// attacker whose near-copies are to count keeps them that far out.
func BeyondCopies(rule aggregate.Aggregator, self aggregate.Contribution) float64 {
	r, ok := aggregate.RobustOf(rule)
	if !ok {
		return 0
	}
	return copyMargin * r.Clip.CopyRadius(self)
}
