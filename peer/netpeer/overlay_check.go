package netpeer

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
)

// WrongNeighbours compares the neighbour sets that peers report on
// /status with overlay.ExpectedTablesAt of exactly their IDs and
// placement (PlacementOf). It returns the first differences, "ID: n
// neighbours, want m" (at most 3, then a count), or "" when every set is
// right: what a test or an operator checks an overlay of real peers by.
func WrongNeighbours(sts []Status, spaces int) string {
	ids := make([]ident.Peer, len(sts))
	for i, s := range sts {
		b, _ := hex.DecodeString(s.ID)
		copy(ids[i][:], b)
	}
	want := overlay.ExpectedTablesAt(ids, spaces, PlacementOf(sts))
	var diffs []string
	for i, s := range sts {
		ns := want[ids[i]].Neighbors()
		w := make([]string, len(ns))
		for j, id := range ns {
			w[j] = hex.EncodeToString(id[:])
		}
		slices.Sort(w)
		if !slices.Equal(w, s.Neighbors) {
			diffs = append(diffs, fmt.Sprintf("%.8s: %d neighbours, want %d", s.ID, len(s.Neighbors), len(w)))
		}
	}
	if len(diffs) > 3 {
		diffs = append(diffs[:3], fmt.Sprintf("... %d peers wrong", len(diffs)))
	}
	return strings.Join(diffs, " ")
}
