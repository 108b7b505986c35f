package attack

import (
	"slices"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Blind is the blind adaptive attack (the lab's adaptive-blind) of an
// attacker that sees neither the receiver's model nor the honest
// neighbours': own is its current honest model, with Origin its
// training start, standing in for the receiver's (a neighbour trained
// from nearly the same point on data like its own); standIns are its
// own earlier models, standing in for the honest neighbours; dir is the
// direction it pushes, its signs balanced (BalanceSigns) where rule
// runs the sign check and tilted towards the stand-ins' consensus
// (AlignConsensus) where it runs the consensus check. It returns own +
// gamma * dir', dir' dir scaled to
// the stand-ins' median distance from own, gamma from Search against
// rule (tol: the reputation's tolerance), and gamma; ok is false when
// there is nothing to measure the scale by (no stand-in apart from own,
// or a zero direction).
func Blind(rule aggregate.Aggregator, tol float64, own aggregate.Contribution, standIns [][]float32, dir []float32) (m []float32, gamma float64, ok bool) {
	nb := make([]aggregate.Contribution, 0, len(standIns)+1)
	for k, p := range standIns {
		c := own
		c.Origin, c.Params = nil, p
		c.From = ident.Peer{byte(k + 1)} // distinct neighbours
		nb = append(nb, c)
	}
	slot := len(nb)
	evil := own
	evil.Origin, evil.From = nil, ident.Peer{0xff}
	nb = append(nb, evil)
	slots := []int{slot}
	if len(dir) != len(own.Params) {
		return nil, 0, false
	}
	d := slices.Clone(dir)
	if SignChecked(rule) && !BalanceSigns(d) {
		return nil, 0, false
	}
	if bar, ok := ConsensusBar(rule); ok {
		AlignConsensus(d, own.Params, nb, slots, bar) // no stand-in to align with: the push as it is
	}
	if !ScaleTo(d, MedianDistance(own.Params, nb, slots)) {
		return nil, 0, false
	}
	res, g := Search(rule, tol, own, nb, slots, MaxGamma,
		func(int) []float32 { return own.Params }, func(int) []float32 { return d })
	return res[slot], g, true
}
