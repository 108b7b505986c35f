package scenario

import (
	"github.com/peerlearn/peerlearn/peer/learn"
	"github.com/peerlearn/peerlearn/theory/topology"
)

// honestLinksCut counts the links of g between two honest peers (byz
// false) that either end's reputation drops (learn.Peer.ShouldDrop): a
// defence's false alarms, counted as links rather than as accuracy,
// which one training order measures only to a point or so.
func honestLinksCut(g *topology.Graph, peers []*learn.Peer, byz []bool) int {
	n := 0
	for i := range peers {
		if byz[i] {
			continue
		}
		for _, j := range g.Neighbors(i) {
			if j > i && !byz[j] && (peers[i].ShouldDrop(peers[j].Config().ID) || peers[j].ShouldDrop(peers[i].Config().ID)) {
				n++
			}
		}
	}
	return n
}
