package learn

import (
	"fmt"

	"github.com/peerlearn/peerlearn/engine/nn"
)

// Evaluator measures parameter vectors of one architecture on a labelled
// set. It owns a model: give each goroutine its own Evaluator.
type Evaluator struct {
	model *nn.Model
}

// NewEvaluator returns an evaluator for arch.
func NewEvaluator(arch nn.Arch) (*Evaluator, error) {
	m, err := nn.NewModel(arch)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return &Evaluator{model: m}, nil
}

// Evaluate returns the loss and accuracy of params on (x, y). Non-finite
// parameters are refused (nn.ErrNonFinite).
func (e *Evaluator) Evaluate(params []float32, x []float32, y []int32) (nn.Metrics, error) {
	if params == nil {
		return nn.Metrics{}, ErrNoModel
	}
	if err := e.model.SetParams(params); err != nil {
		return nn.Metrics{}, err
	}
	return e.model.Evaluate(x, y, 0, nil)
}
