package plexus

import (
	"fmt"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

// TrainTask asks the caller to train: start from Params (shared, never
// modify it: train a copy) for round Round, then call ReportTrained.
type TrainTask struct {
	Round  uint64
	Params []float32
}

// AggregateTask asks the caller to average the trained Models of round
// Round and report the result with ReportAggregated. Base is the model
// the round started from (nil if this peer never received it).
type AggregateTask struct {
	Round  uint64
	Base   []float32
	Models []aggregate.Contribution
}

// FedAvg averages t.Models into out weighted by their DataSize
// (aggregate.FedAvg, the FL server's step; with equal data sizes the
// plain avg(Θ) of Algorithm 2). Models refused by aggregate's checks are
// listed in the Report and left out.
func (t AggregateTask) FedAvg(out []float32) (aggregate.Report, error) {
	if len(t.Models) == 0 {
		return aggregate.Report{}, fmt.Errorf("%w: round %d has no models", ErrNoTask, t.Round)
	}
	tmpl := aggregate.Contribution{Arch: t.Models[0].Arch, Params: t.Base}
	if tmpl.Params == nil {
		tmpl.Params = t.Models[0].Params
	}
	return aggregate.FedAvg{}.Aggregate(tmpl, t.Models, out)
}
