package scenario

import (
	"math"

	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/sim/dflsim"
	"github.com/peerlearn/peerlearn/theory/topology"
)

// byzExposure counts how exposed the honest peers of one placement are:
// honest peers at least half of whose overlay neighbours are Byzantine
// (a liar majority or a tie: a rule that trusts the neighbourhood's
// majority, a median or a quantile past the middle, is theirs to set),
// those with a strict majority, and those with no honest neighbour at
// all (only their own data can save them). It is a property of the
// overlay and the placement, the same for every attack and rule.
type byzExposure struct {
	honest, half, majority, none int
	degree                       float64 // mean degree of the honest peers
}

func exposureOf(g *topology.Graph, byz []bool) byzExposure {
	var e byzExposure
	deg := 0
	for i := range g.N() {
		if byz[i] {
			continue
		}
		e.honest++
		nb := g.Neighbors(i)
		deg += len(nb)
		bad := byzNeighbours(g, byz, i)
		switch {
		case bad == len(nb):
			e.none++
			fallthrough
		case 2*bad > len(nb):
			e.majority++
		}
		if exposed(g, byz, i) {
			e.half++
		}
	}
	if e.honest > 0 {
		e.degree = float64(deg) / float64(e.honest)
	}
	return e
}

// byzNeighbours counts peer i's Byzantine overlay neighbours.
func byzNeighbours(g *topology.Graph, byz []bool, i int) int {
	bad := 0
	for _, j := range g.Neighbors(i) {
		if byz[j] {
			bad++
		}
	}
	return bad
}

// exposed reports whether honest peer i is exposed: at least half of
// its overlay neighbours Byzantine (byzExposure's half; a peer without
// neighbours has no honest one, so it counts).
func exposed(g *topology.Graph, byz []bool, i int) bool {
	return !byz[i] && 2*byzNeighbours(g, byz, i) >= len(g.Neighbors(i))
}

// exposedAccuracy is the mean test accuracy of the exposed honest peers
// and of the other honest peers (NaN for an empty group): where a cell's
// damage sits, on the peers the attackers surround or across the
// network (PEERLEARN_BYZ_SELECT exposure=1).
func exposedAccuracy(pool *dflsim.Pool, g *topology.Graph, peers []*learn.Peer, byz []bool, ev dflsim.Eval) (exposedAcc, restAcc float64, err error) {
	var in, out []*learn.Peer
	for i, p := range peers {
		switch {
		case byz[i]:
		case exposed(g, byz, i):
			in = append(in, p)
		default:
			out = append(out, p)
		}
	}
	mean := func(group []*learn.Peer) (float64, error) {
		if len(group) == 0 {
			return math.NaN(), nil
		}
		pt, err := dflsim.Measure(pool, group, ev)
		return pt.Acc.Mean, err
	}
	if exposedAcc, err = mean(in); err != nil {
		return 0, 0, err
	}
	restAcc, err = mean(out)
	return exposedAcc, restAcc, err
}
