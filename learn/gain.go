package learn

import (
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/topology"
)

// GainExact is the initialisation-gain paper's exact gain for the
// communication graph g: 1/||v_steady||, v_steady the stationary vector
// of the DecAvg averaging matrix (topology.VSteadyNorm). It is sqrt(n)
// on regular graphs and smaller on heterogeneous ones.
func GainExact(g *topology.Graph) (float64, error) {
	norm, err := topology.VSteadyNorm(g)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return 1 / norm, nil
}

// GainApprox is the approximate gain from an estimate of the number of
// peers alone: sqrt(n), exact for regular graphs and close for
// Erdős–Rényi ones (Sec. 4.4 of the paper).
func GainApprox(n float64) (float64, error) {
	if !(n >= 1) || math.IsInf(n, 1) {
		return 0, fmt.Errorf("%w: peer count estimate %v", ErrConfig, n)
	}
	return math.Sqrt(n), nil
}
