package aggregate

// DecAvg weights each model of the closed neighbourhood by its data size:
// w_i = sum_{j in N_i u {i}} |D_j| w_j / sum_k |D_k| (Eq. 3 of the
// initialisation-gain paper). A negative DataSize is refused; if every
// accepted DataSize is zero Aggregate fails with ErrZeroWeight.
type DecAvg struct{}

// Aggregate implements Aggregator.
func (DecAvg) Aggregate(self Contribution, others []Contribution, out []float32) (Report, error) {
	return scalarMean(self, others, out, dataSizeRule, dataWeight, true)
}

func dataWeight(c Contribution) float64 { return float64(c.DataSize) }
