package methodsim

import (
	"fmt"

	"github.com/peerlearn/peerlearn/engine/data"
	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/sim/dflsim"
)

// OwnAccuracy measures every peer's published model on the test set of
// its own distribution: tests[0] for the peers of unrotated shards,
// tests[1] for the rotated ones (the test set rotated the same way), as
// the PENS thesis measures personalisation (Sec. 3.5). samples, if
// positive, uses only the first samples test images.
func OwnAccuracy(pool *Pool, b *Peers, tests [2]*data.Dataset, samples int) ([]nn.Metrics, error) {
	models := make([][]float32, b.N())
	for i, p := range b.Peers {
		models[i] = p.Published()
	}
	return OwnAccuracyOf(pool, b, models, tests, samples)
}

// OwnAccuracyOf is OwnAccuracy of the models given, models[i] peer i's
// (a core's, or a snapshot of one round's).
func OwnAccuracyOf(pool *Pool, b *Peers, models [][]float32, tests [2]*data.Dataset, samples int) ([]nn.Metrics, error) {
	n := b.N()
	if len(models) != n {
		return nil, fmt.Errorf("%w: %d models for %d peers", ErrConfig, len(models), n)
	}
	xs, ys := make([][]float32, n), make([][]int32, n)
	for i := range b.Peers {
		if models[i] == nil {
			return nil, fmt.Errorf("%w: peer %d has no model", ErrRun, i)
		}
		t := tests[0]
		if b.Shards[i].Rotated {
			t = tests[1]
		}
		if t == nil {
			return nil, fmt.Errorf("%w: no test set for peer %d", ErrConfig, i)
		}
		xs[i], ys[i] = dflsim.Head(t, samples)
	}
	return dflsim.EvaluateAll(pool, b.Peers[0].Config().Arch, models, xs, ys)
}

// MeanAccuracy averages the accuracies of ms (0 for none).
func MeanAccuracy(ms []nn.Metrics) float64 {
	if len(ms) == 0 {
		return 0
	}
	s := 0.0
	for _, m := range ms {
		s += m.Accuracy
	}
	return s / float64(len(ms))
}
