package selection

import (
	"errors"
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

func TestPrecisionRecall(t *testing.T) {
	// Two clusters of five: self, 1..4 in cluster A; 5..9 in B.
	clusters := map[ident.Peer]int{self: 0}
	for b := byte(1); b <= 9; b++ {
		clusters[id(b)] = int(b / 5)
	}
	s, err := PrecisionRecall(self, []ident.Peer{id(1), id(2), id(7)}, clusters)
	if err != nil {
		t.Fatal(err)
	}
	if s.Correct != 2 || s.Selected != 3 || s.Relevant != 4 || math.Abs(s.Precision-2.0/3) > 1e-15 || s.Recall != 0.5 {
		t.Fatalf("score %+v, want precision 2/3 recall 2/4", s)
	}
	s2, _ := PrecisionRecall(id(5), []ident.Peer{id(6), id(7), id(8), id(9)}, clusters)
	if s2.Precision != 1 || s2.Recall != 1 {
		t.Fatalf("perfect score %+v", s2)
	}
	none, _ := PrecisionRecall(id(1), nil, clusters)
	if none.Precision != 0 || none.Recall != 0 {
		t.Fatalf("empty selection %+v", none)
	}
	p, r := MeanScore([]Score{s, s2, none})
	if math.Abs(p-(2.0/3+1)/3) > 1e-15 || math.Abs(r-0.5) > 1e-15 {
		t.Fatalf("mean %v %v", p, r)
	}
	for i, c := range []struct {
		self ident.Peer
		sel  []ident.Peer
		want error
	}{
		{id(42), nil, ErrUnknownPeer},
		{self, []ident.Peer{id(42)}, ErrUnknownPeer},
		{self, []ident.Peer{self}, ErrCandidates},
		{self, []ident.Peer{id(1), id(1)}, ErrCandidates},
	} {
		if _, err := PrecisionRecall(c.self, c.sel, clusters); !errors.Is(err, c.want) {
			t.Errorf("case %d: %v, want %v", i, err, c.want)
		}
	}
}
