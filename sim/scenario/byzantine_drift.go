package scenario

import (
	"strings"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

// driftSuffix names a lab rule whose honest peers' reputations run the
// drift test (aggregate.DriftConfig, off on real peers): "clipped-fedlay+drift",
// and with the neighbourhood check "clipped-fedlay+drift+health". The
// adaptive attackers search against it too (dflsim: the receiver's drift
// sums are granted them).
const driftSuffix = "+drift"

// suspendSuffix names the drift test in its Suspend form: a neighbour
// over the limit is left out of the rounds while it stays there instead
// of being charged and unlinked ("clipped-fedlay+suspend",
// "clipped-fedlay+suspend+health").
const suspendSuffix = "+suspend"

// splitDrift returns the aggregation rule of a lab rule name (without
// "+health") and the drift test its honest peers run (zero: none).
func splitDrift(rule string) (base string, drift aggregate.DriftConfig) {
	if base, ok := strings.CutSuffix(rule, driftSuffix); ok {
		return base, aggregate.DefaultDriftConfig()
	}
	if base, ok := strings.CutSuffix(rule, suspendSuffix); ok {
		drift = aggregate.DefaultDriftConfig()
		drift.Suspend = true
		return base, drift
	}
	return rule, aggregate.DriftConfig{}
}
