package method

import (
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

func TestCheckPlexusStatus(t *testing.T) {
	a, b, c := ident.Peer{1}, ident.Peer{2}, ident.Peer{3}
	ranking := func(uint64) []ident.Peer { return []ident.Peer{a, b} }
	agg, wrong, second := a, c, b
	for _, tc := range []struct {
		name string
		st   Status
		ok   bool
	}{
		{"agrees", Status{Role: "trainer", Round: 4, Members: 3, Sample: []ident.Peer{b, a}, Aggregator: &agg}, true},
		{"partial view is not checked", Status{Role: "idle", Round: 4, Members: 2, Sample: []ident.Peer{c}}, true},
		{"other sample", Status{Role: "trainer", Round: 4, Members: 3, Sample: []ident.Peer{a, c}, Aggregator: &agg}, false},
		{"other aggregator", Status{Role: "aggregator", Round: 4, Members: 3, Sample: []ident.Peer{a, b}, Aggregator: &wrong}, false},
		{"no aggregator", Status{Role: "trainer", Round: 4, Members: 3, Sample: []ident.Peer{a, b}}, false},
		{"first not missed", Status{Role: "trainer", Round: 4, Members: 3, Sample: []ident.Peer{a, b}, Aggregator: &second, Missed: []ident.Peer{a}}, true},
		{"missed one named", Status{Role: "trainer", Round: 4, Members: 3, Sample: []ident.Peer{a, b}, Aggregator: &agg, Missed: []ident.Peer{a}}, false},
		{"second without a miss", Status{Role: "trainer", Round: 4, Members: 3, Sample: []ident.Peer{a, b}, Aggregator: &second}, false},
		{"more members than ran", Status{Role: "idle", Round: 4, Members: 4}, false},
		{"a role Plexus has not", Status{Role: "waiting", Round: 4, Members: 3, Sample: []ident.Peer{a, b}, Aggregator: &agg}, false},
	} {
		if err := CheckPlexusStatus(tc.st, ranking, 3); (err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
