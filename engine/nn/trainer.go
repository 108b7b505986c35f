package nn

import (
	"context"
	"fmt"
	"math/rand/v2"
)

// Trainer is the pure-Go Backend: a Model and its Optimizer.
type Trainer struct {
	model     *Model
	opt       Optimizer
	yield     func()
	evalBatch int

	// epoch buffers, kept across epochs
	order []int32
	bx    []float32
	by    []int32
}

// NewTrainer returns a trainer that updates m with opt.
func NewTrainer(m *Model, opt Optimizer) (*Trainer, error) {
	if m == nil || opt == nil {
		return nil, fmt.Errorf("%w: nil model or optimiser", ErrConfig)
	}
	return &Trainer{model: m, opt: opt}, nil
}

// Model returns the trained model (shared, not a copy).
func (t *Trainer) Model() *Model { return t.model }

// Optimizer returns the optimiser (shared, not a copy).
func (t *Trainer) Optimizer() Optimizer { return t.opt }

// Arch implements Backend.
func (t *Trainer) Arch() Arch { return t.model.Arch() }

// NumParams implements Backend.
func (t *Trainer) NumParams() int { return t.model.NumParams() }

// Params implements Backend.
func (t *Trainer) Params(dst []float32) error {
	if len(dst) != t.model.NumParams() {
		return fmt.Errorf("%w: destination has %d values, model %d parameters", ErrShape, len(dst), t.model.NumParams())
	}
	copy(dst, t.model.params)
	return nil
}

// SetParams implements Backend.
func (t *Trainer) SetParams(src []float32) error { return t.model.SetParams(src) }

// SetYield implements Backend.
func (t *Trainer) SetYield(yield func()) { t.yield = yield }

// SetEvalBatch sets the batch size of Evaluate and HessianDiag (0: DefaultEvalBatch).
func (t *Trainer) SetEvalBatch(n int) { t.evalBatch = max(n, 0) }

// ResetOptimizer implements Backend.
func (t *Trainer) ResetOptimizer() { t.opt.Reset() }

// TrainBatch implements Backend.
func (t *Trainer) TrainBatch(x []float32, y []int32) (float32, error) {
	loss, err := t.model.LossGrad(x, y)
	if err != nil {
		return 0, err
	}
	if err := t.opt.Step(t.model.params, t.model.grads); err != nil {
		return 0, err
	}
	return loss, nil
}

// Evaluate implements Backend.
func (t *Trainer) Evaluate(x []float32, y []int32) (Metrics, error) {
	return t.model.Evaluate(x, y, t.evalBatch, t.yield)
}

// HessianDiag implements Backend.
func (t *Trainer) HessianDiag(x []float32, y []int32, dst []float32) error {
	return t.model.HessianDiag(x, y, t.evalBatch, dst, t.yield)
}

// EpochConfig configures TrainEpoch.
type EpochConfig struct {
	// Batch is the number of samples per step; the last step takes the
	// remainder.
	Batch int
	// Shuffle, if not nil, permutes the sample order (one rng.Shuffle per
	// epoch); nil keeps the given order.
	Shuffle *rand.Rand
	// Progress, if not nil, is called after each step with the number of
	// samples done so far and the total.
	Progress func(done, total int)
}

// TrainEpoch makes one pass over (x, y) and returns the mean of the step
// losses weighted by step size. It checks ctx and calls the yield
// function between steps.
func (t *Trainer) TrainEpoch(ctx context.Context, x []float32, y []int32, cfg EpochConfig) (float64, error) {
	n, f := len(y), t.model.inSize
	if cfg.Batch < 1 {
		return 0, fmt.Errorf("%w: batch size %d", ErrConfig, cfg.Batch)
	}
	if n == 0 || len(x) != n*f {
		return 0, fmt.Errorf("%w: %d input values for %d samples of %d features", ErrShape, len(x), n, f)
	}
	if cap(t.order) < n {
		t.order = make([]int32, n)
	}
	order := t.order[:n]
	for i := range order {
		order[i] = int32(i)
	}
	if cfg.Shuffle != nil {
		cfg.Shuffle.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	b := min(cfg.Batch, n)
	t.bx, t.by = grow(t.bx, b*f), growInt32(t.by, b)
	var total float64
	for lo := 0; lo < n; lo += b {
		if lo > 0 && t.yield != nil {
			t.yield()
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		hi := min(lo+b, n)
		bx, by := t.bx[:(hi-lo)*f], t.by[:hi-lo]
		for k, i := range order[lo:hi] {
			copy(bx[k*f:(k+1)*f], x[int(i)*f:(int(i)+1)*f])
			by[k] = y[i]
		}
		loss, err := t.TrainBatch(bx, by)
		if err != nil {
			return 0, fmt.Errorf("step at samples %d..%d: %w", lo, hi-1, err)
		}
		total += float64(loss) * float64(hi-lo)
		if cfg.Progress != nil {
			cfg.Progress(hi, n)
		}
	}
	return total / float64(n), nil
}
