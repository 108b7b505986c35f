package scenario

import "github.com/peerlearn/peerlearn/theory/topology"

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
		bad := 0
		for _, j := range nb {
			if byz[j] {
				bad++
			}
		}
		switch {
		case bad == len(nb):
			e.none++
			fallthrough
		case 2*bad > len(nb):
			e.majority++
			fallthrough
		case 2*bad == len(nb):
			e.half++
		}
	}
	if e.honest > 0 {
		e.degree = float64(deg) / float64(e.honest)
	}
	return e
}
