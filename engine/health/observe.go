package health

import (
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Result is one model's evaluation on our data, as a peer runtime
// measures it (nn.Metrics' Correct, Total and Loss), with the model's
// parameters for the echo test (Score.Near).
type Result struct {
	Peer           ident.Peer
	Params         []float32
	Correct, Total []int
	Loss           float64
}

// Round is what one round gives the check beyond the results: Mine, our
// model the neighbours' models were aggregated with, and Step, the
// length of the step that made it (our last training's start to it; 0:
// unknown, no echo test).
type Round struct {
	Mine []float32
	Step float64
}

// ObserveResults is the glue every runtime shares (the simulator's
// dflsim.Health and peer/learn's Peer): it turns self's and the
// neighbours' evaluations into Scores (Balanced, the loss, and the
// distance to r.Mine over r.Step when both are known and the lengths
// agree) and feeds them to Observe.
func (m *Monitor) ObserveResults(self Result, nbrs []Result, r Round) (Verdict, error) {
	own, err := Balanced(self.Correct, self.Total)
	if err != nil {
		return Verdict{}, fmt.Errorf("own model: %w", err)
	}
	scores := make([]Score, len(nbrs))
	for k, n := range nbrs {
		acc, err := Balanced(n.Correct, n.Total)
		if err != nil {
			return Verdict{}, fmt.Errorf("neighbour %v: %w", n.Peer, err)
		}
		scores[k] = Score{Peer: n.Peer, Acc: acc, Loss: n.Loss}
		if r.Step > 0 && len(n.Params) == len(r.Mine) {
			scores[k].Near, scores[k].NearKnown = Distance(n.Params, r.Mine)/r.Step, true
		}
	}
	return m.Observe(own, scores)
}

// TrustSet returns the neighbours to aggregate with as a set, or nil for
// "every neighbour" (the verdict is not Captured).
func (v Verdict) TrustSet() map[ident.Peer]bool {
	if v.State != Captured {
		return nil
	}
	t := make(map[ident.Peer]bool, len(v.Trusted))
	for _, id := range v.Trusted {
		t[id] = true
	}
	return t
}

// Distance is the Euclidean distance between a and b (of one length).
func Distance(a, b []float32) float64 {
	var sum float64
	for i, v := range a {
		d := float64(v) - float64(b[i])
		sum += d * d
	}
	return math.Sqrt(sum)
}
