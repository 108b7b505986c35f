package scenario

import (
	"fmt"
	"strings"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/peer/learn"
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

// leftOutPerRound is the honest peers' neighbour models left out by the
// drift test's Suspend form, per honest peer and published round.
func leftOutPerRound(peers []*learn.Peer, byz []bool) float64 {
	var out, rounds int
	for i, p := range peers {
		if byz[i] {
			continue
		}
		m := p.Metrics()
		out += m.Suspended
		rounds += m.Rounds
	}
	if rounds == 0 {
		return 0
	}
	return float64(out) / float64(rounds)
}

// suspendLog is a lab row's account of the Suspend form (empty for a
// rule without it): the models it left out, per honest peer and round,
// mean over the orders. Without attack every one was an honest
// neighbour's.
func suspendLog(r byzResult) string {
	if !r.suspends {
		return ""
	}
	return fmt.Sprintf(" left_out_per_round=%.3f", r.leftOut)
}
