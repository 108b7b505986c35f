package selection

import (
	"fmt"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Score is the quality of one peer's neighbour selection against the true
// clusters (Table 4.3 of the thesis).
type Score struct {
	// Precision is Correct/Selected: the fraction of selected neighbours
	// in our own cluster; 0 when nobody was selected.
	Precision float64
	// Recall is Correct/Relevant: the fraction of our cluster (self
	// excluded) that was selected; 1 when our cluster has nobody else.
	Recall float64
	// Correct, Selected and Relevant are the counts behind them.
	Correct, Selected, Relevant int
}

// PrecisionRecall scores the neighbours selected by self (for PENS: the
// step-2 set, PENS.Neighbours) against clusters, the true cluster of
// every peer. Every peer involved must be in clusters, and selected must
// not repeat a peer or hold self.
func PrecisionRecall(self ident.Peer, selected []ident.Peer, clusters map[ident.Peer]int) (Score, error) {
	mine, ok := clusters[self]
	if !ok {
		return Score{}, fmt.Errorf("%w: self %v", ErrUnknownPeer, self)
	}
	var s Score
	seen := make(map[ident.Peer]bool, len(selected))
	for _, id := range selected {
		c, ok := clusters[id]
		switch {
		case !ok:
			return Score{}, fmt.Errorf("%w: %v", ErrUnknownPeer, id)
		case id == self:
			return Score{}, fmt.Errorf("%w: self selected", ErrCandidates)
		case seen[id]:
			return Score{}, fmt.Errorf("%w: %v twice", ErrCandidates, id)
		}
		seen[id] = true
		if c == mine {
			s.Correct++
		}
	}
	for id, c := range clusters {
		if c == mine && id != self {
			s.Relevant++
		}
	}
	s.Selected = len(selected)
	if s.Selected > 0 {
		s.Precision = float64(s.Correct) / float64(s.Selected)
	}
	s.Recall = 1
	if s.Relevant > 0 {
		s.Recall = float64(s.Correct) / float64(s.Relevant)
	}
	return s, nil
}

// MeanScore averages precision and recall over peers, as Table 4.3
// reports them; (0, 0) for no scores.
func MeanScore(scores []Score) (precision, recall float64) {
	if len(scores) == 0 {
		return 0, 0
	}
	for _, s := range scores {
		precision += s.Precision
		recall += s.Recall
	}
	n := float64(len(scores))
	return precision / n, recall / n
}
