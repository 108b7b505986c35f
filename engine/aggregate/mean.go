package aggregate

// Mean is the plain average over self and the accepted neighbours, every
// model weighted equally (gossip / D-PSGD style).
type Mean struct{}

// Aggregate implements Aggregator.
func (Mean) Aggregate(self Contribution, others []Contribution, out []float32) (Report, error) {
	return scalarMean(self, others, out, nil, func(Contribution) float64 { return 1 }, true)
}
