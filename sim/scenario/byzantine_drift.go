package scenario

import "strings"

// driftSuffix names a lab rule whose honest peers' reputations run the
// drift test (aggregate.DriftConfig, off on real peers): "clipped-fedlay+drift",
// and with the neighbourhood check "clipped-fedlay+drift+health". The
// adaptive attackers search against it too (dflsim: the receiver's drift
// sums are granted them).
const driftSuffix = "+drift"

// splitDrift returns the aggregation rule of a lab rule name (without
// "+health") and whether the drift test runs.
func splitDrift(rule string) (base string, drift bool) {
	return strings.CutSuffix(rule, driftSuffix)
}
