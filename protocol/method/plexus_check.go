package method

import (
	"fmt"
	"slices"
	"strings"

	"github.com/peerlearn/peerlearn/types/ident"
)

// CheckPlexusStatus is what a Plexus peer's status must say once its view
// holds every one of n members: its round's sample and aggregator as
// ranking (plexus.View.Ranking over those members, none missed) orders
// them, the aggregator being the first not in the status's Missed, and
// a role Plexus has. A status with a partial view (fewer members, or no
// round yet) is not checked; one with more members than ran is wrong.
// The end-to-end tests check every status a peer reports with it.
func CheckPlexusStatus(st Status, ranking func(round uint64) []ident.Peer, n int) error {
	if !slices.Contains([]string{"trainer", "aggregator", "idle"}, st.Role) {
		return fmt.Errorf("role %q", st.Role)
	}
	if st.Members > n {
		return fmt.Errorf("%d members, only %d peers ran", st.Members, n)
	}
	if st.Members < n || st.Round == 0 {
		return nil
	}
	want := ranking(uint64(st.Round))
	got := slices.SortedFunc(slices.Values(st.Sample), func(a, b ident.Peer) int { return strings.Compare(a.Hex(), b.Hex()) })
	if len(want) == 0 || !slices.Equal(got, want) {
		return fmt.Errorf("round %d: sample %v, recomputed %v", st.Round, st.Sample, want)
	}
	agg := want[0] // every one missed: the ranking's own order
	if i := slices.IndexFunc(want, func(id ident.Peer) bool { return !slices.Contains(st.Missed, id) }); i >= 0 {
		agg = want[i]
	}
	if st.Aggregator == nil || *st.Aggregator != agg {
		return fmt.Errorf("round %d: aggregator %v (missed %v), recomputed %v", st.Round, st.Aggregator, st.Missed, agg)
	}
	return nil
}
