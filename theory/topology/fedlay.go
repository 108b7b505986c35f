package topology

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
)

// FedLay returns the correct FedLay overlay (Definition 1 of the paper) on
// the peers ids with L ring spaces: in every space s = 0..L-1 the peers
// sit on a ring at overlay.Coordinate(id, s), ordered by coordinate with
// ties broken by the smaller ID, and each peer is linked to its
// predecessor and successor. Node i of the graph is ids[i]. A peer
// adjacent to the same neighbour in several spaces gets one edge, so
// degrees are at most 2L (and n-1). IDs must be distinct; L >= 1.
func FedLay(ids []ident.Peer, L int) (*Graph, error) {
	n := len(ids)
	if err := checkN(n); err != nil {
		return nil, err
	}
	if L < 1 {
		return nil, errorf("L = %d, want L >= 1", L)
	}
	seen := make(map[ident.Peer]int, n)
	for i, id := range ids {
		if j, dup := seen[id]; dup {
			return nil, errorf("peers %d and %d share ID %v", j, i, id)
		}
		seen[id] = i
	}
	g := newGraph(n)
	if n == 1 {
		return g, nil
	}
	order := make([]int, n)
	coord := make([]overlay.Coord, n)
	for s := range L {
		for i, id := range ids {
			order[i] = i
			coord[i] = overlay.Coordinate(id, s)
		}
		slices.SortFunc(order, func(a, b int) int {
			if c := cmp.Compare(coord[a], coord[b]); c != 0 {
				return c
			}
			return bytes.Compare(ids[a][:], ids[b][:])
		})
		for k, u := range order {
			g.link(u, order[(k+1)%n])
		}
	}
	return g, nil
}
