package selection

import (
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/protocol/evalreq"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Candidate is a sampled peer and, if it evaluated our model, what it
// reported: the loss and accuracy of OUR current model on ITS training
// data.
type Candidate struct {
	ID        ident.Peer
	Evaluated bool    // the peer answered an evaluation request
	Loss      float64 // finite, >= 0, when Evaluated
	Accuracy  float64 // in [0, 1], when Evaluated
}

// FromResults turns an evalreq poll's results into candidates: answered
// peers are Evaluated, refused and timed-out ones are not.
func FromResults(rs []evalreq.Result) []Candidate {
	out := make([]Candidate, len(rs))
	for i, r := range rs {
		out[i] = Candidate{ID: r.Peer}
		if r.Status == evalreq.Answered {
			out[i].Evaluated, out[i].Loss, out[i].Accuracy = true, r.Loss, r.Accuracy
		}
	}
	return out
}

// IDs returns the candidates' peer IDs, in order.
func IDs(cs []Candidate) []ident.Peer {
	out := make([]ident.Peer, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// checkSample rejects a sample that repeats a peer, holds self, or
// carries an evaluation out of range.
func checkSample(self ident.Peer, s []Candidate) error {
	seen := make(map[ident.Peer]bool, len(s))
	for _, c := range s {
		switch {
		case c.ID == self && self != ident.Peer{}:
			return fmt.Errorf("%w: self %v", ErrCandidates, c.ID)
		case seen[c.ID]:
			return fmt.Errorf("%w: %v twice", ErrCandidates, c.ID)
		case c.Evaluated && (!(c.Loss >= 0) || math.IsInf(c.Loss, 1)):
			return fmt.Errorf("%w: %v loss %v", ErrCandidates, c.ID, c.Loss)
		case c.Evaluated && !(c.Accuracy >= 0 && c.Accuracy <= 1):
			return fmt.Errorf("%w: %v accuracy %v", ErrCandidates, c.ID, c.Accuracy)
		}
		seen[c.ID] = true
	}
	return nil
}

// evaluated returns the evaluated candidates of s, in order.
func evaluated(s []Candidate) []Candidate {
	out := make([]Candidate, 0, len(s))
	for _, c := range s {
		if c.Evaluated {
			out = append(out, c)
		}
	}
	return out
}
