package selection

import (
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

// weighted is aggregate's FedLay mean with the communication term off:
// weights proportional to DataConf, which Average sets from the policy's
// weights. It reuses aggregate's validation (architecture, length,
// finiteness, duplicates) and its float64 mixing.
var weighted = aggregate.FedLay{Config: aggregate.FedLayConfig{DataWeight: 1}}

// Average writes into out the weighted mean of self (weight w[0]) and
// others (w[i+1]), w as returned by Policy.Weights; out may be
// self.Params. Only Arch, Params and From of the contributions are read.
// A model refused by aggregate's checks (another architecture or length,
// non-finite values, a duplicate sender) is left out and the remaining
// weights renormalised; the Report lists it with its index in others. A
// model with weight 0 is left out silently. A self weight of 0 keeps self
// in only as the template for shape checks, with a weight below 1e-300 of
// the others'.
func Average(self aggregate.Contribution, others []aggregate.Contribution, w []float64, out []float32) (aggregate.Report, error) {
	if len(w) != len(others)+1 {
		return aggregate.Report{}, fmt.Errorf("%w: %d weights for %d models", ErrWeights, len(w), len(others)+1)
	}
	var top float64
	for _, x := range w {
		if !finiteNonNeg(x) {
			return aggregate.Report{}, fmt.Errorf("%w: weight %v", ErrWeights, x)
		}
		top = max(top, x)
	}
	if top == 0 {
		return aggregate.Report{}, fmt.Errorf("%w: all zero", ErrWeights)
	}
	conf := func(x float64) float64 { return max(x/top, math.SmallestNonzeroFloat64) }
	s := aggregate.Contribution{From: self.From, Arch: self.Arch, Params: self.Params, Period: 1, DataConf: conf(w[0])}
	var os []aggregate.Contribution
	var idx []int
	for i, c := range others {
		if w[i+1] == 0 {
			continue
		}
		os = append(os, aggregate.Contribution{From: c.From, Arch: c.Arch, Params: c.Params, Period: 1, DataConf: conf(w[i+1])})
		idx = append(idx, i)
	}
	rep, err := weighted.Aggregate(s, os, out)
	for k := range rep.Refused {
		rep.Refused[k].Index = idx[rep.Refused[k].Index]
	}
	return rep, err
}
