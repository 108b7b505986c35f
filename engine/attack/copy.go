package attack

import (
	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/health"
)

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

// BeyondEcho returns the smallest distance from self at which a
// receiver's neighbourhood check does not take a model for an echo of
// its own (health.Config.EchoBelow times its last step, |self.Params -
// self.Origin|), with copyMargin, or 0 without a bound or an Origin: the
// check's counterpart of BeyondCopies, for an attacker that knows the
// whole default defence, not only the rule.
func BeyondEcho(echoBelow float64, self aggregate.Contribution) float64 {
	if echoBelow <= 0 || len(self.Origin) != len(self.Params) {
		return 0
	}
	return copyMargin * echoBelow * health.Distance(self.Params, self.Origin)
}
