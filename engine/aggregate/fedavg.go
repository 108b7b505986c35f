package aggregate

// FedAvg is the server-side FedAvg step, the centralised upper-bound
// baseline: out = sum_j |D_j| w_j / sum_k |D_k| over the clients' models
// in others. Self is the server's current global model: it fixes the
// architecture tag and length but is not averaged; with no accepted
// client out becomes a copy of it. A simulator computes the baseline by
// passing every client's trained model as others.
type FedAvg struct{}

// Aggregate implements Aggregator.
func (FedAvg) Aggregate(self Contribution, others []Contribution, out []float32) (Report, error) {
	return scalarMean(self, others, out, dataSizeRule, dataWeight, false)
}
