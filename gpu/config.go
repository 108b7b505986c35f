package gpu

import (
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/f32"
)

// Config configures a Backend.
type Config struct {
	// Threads, when positive, sets libtorch's intra-op thread count
	// (torch::set_num_threads) and OpenBLAS's. Both are process-wide: the
	// last New with Threads > 0 sets them for every Backend. 0 leaves
	// libtorch's default (all cores).
	Threads int
	// Device is "" or "auto" (CUDA when the linked libtorch has it and a
	// device is present, else CPU), "cpu", "cuda" or "cuda:N".
	Device string
	// EvalBatch is the batch size of Evaluate and HessianDiag (0:
	// DefaultEvalBatch). Larger batches are faster and use more memory.
	EvalBatch int
	// DropoutSeed seeds the generator of a model's Dropout masks (a
	// PCG; Backend.SetDropoutSource replaces it). Give each peer its own
	// (e.g. from its ID), or peers sharing it draw the same masks.
	DropoutSeed uint64
}

// DefaultEvalBatch is the batch size of Evaluate and HessianDiag when
// Config.EvalBatch is 0.
const DefaultEvalBatch = 256

// maxBatch bounds one call's samples (they cross the C boundary as int32).
const maxBatch = 1 << 20

func (c Config) validate() error {
	if c.Threads < 0 || c.Threads > 1024 {
		return fmt.Errorf("%w: gpu: %d threads", nn.ErrConfig, c.Threads)
	}
	if c.EvalBatch < 0 || c.EvalBatch > maxBatch {
		return fmt.Errorf("%w: gpu: eval batch %d", nn.ErrConfig, c.EvalBatch)
	}
	return nil
}

type optKind uint8

const (
	optSGD optKind = iota + 1
	optAdam
)

// optimizer is the host side of the backend's optimiser: a snapshot of
// the hyperparameters of an *nn.SGD or *nn.Adam and Adam's step count and
// β powers, kept exactly as nn.Adam keeps them (float64, repeated
// multiplication). The per-parameter state lives in libtorch.
type optimizer struct {
	kind                optKind
	lr, momentum, wd    float32
	nesterov, decoupled bool
	beta1, beta2, eps   float32
	t                   int
	b1t, b2t            float64
}

// stepScalars are one step's scalars for the shim (shim.h pl_opt).
type stepScalars struct {
	kind                 optKind
	nesterov             bool
	lr, momentum, wd     float32
	beta1, beta2, eps    float32
	decay, stepSize, bc2 float32
}

// newOptimizer snapshots opt's hyperparameters, validated by nn itself (a
// Step of a fresh copy on one parameter). Later changes to opt are not seen.
func newOptimizer(opt nn.Optimizer) (optimizer, error) {
	one, zero := []float32{0}, []float32{0}
	switch o := opt.(type) {
	case *nn.SGD:
		if o == nil {
			break
		}
		probe := &nn.SGD{LR: o.LR, Momentum: o.Momentum, WeightDecay: o.WeightDecay, Nesterov: o.Nesterov}
		if err := probe.Step(one, zero); err != nil {
			return optimizer{}, err
		}
		return optimizer{kind: optSGD, lr: o.LR, momentum: o.Momentum, wd: o.WeightDecay, nesterov: o.Nesterov}, nil
	case *nn.Adam:
		if o == nil {
			break
		}
		probe := &nn.Adam{LR: o.LR, Beta1: o.Beta1, Beta2: o.Beta2, Eps: o.Eps, WeightDecay: o.WeightDecay, Decoupled: o.Decoupled}
		if err := probe.Step(one, zero); err != nil {
			return optimizer{}, err
		}
		return optimizer{kind: optAdam, lr: o.LR, wd: o.WeightDecay, decoupled: o.Decoupled,
			beta1: o.Beta1, beta2: o.Beta2, eps: o.Eps}, nil
	}
	return optimizer{}, fmt.Errorf("%w: gpu: optimiser %T (want a non-nil *nn.SGD or *nn.Adam)", nn.ErrConfig, opt)
}

// next returns the scalars of the next step and a function that commits
// it (advances Adam's step count), to call only when the step succeeded.
func (o *optimizer) next() (stepScalars, func()) {
	s := stepScalars{kind: o.kind, lr: o.lr, momentum: o.momentum, wd: o.wd, nesterov: o.nesterov}
	if o.kind != optAdam {
		return s, func() {}
	}
	b1t, b2t := o.b1t, o.b2t
	if o.t == 0 {
		b1t, b2t = 1, 1
	}
	b1t *= float64(o.beta1)
	b2t *= float64(o.beta2)
	s.beta1, s.beta2, s.eps = o.beta1, o.beta2, o.eps
	s.stepSize = float32(float64(o.lr) / (1 - b1t))
	s.bc2 = float32(math.Sqrt(1 - b2t))
	s.decay = 1
	if o.decoupled {
		s.decay = 1 - o.lr*o.wd
		s.wd = 0
	}
	return s, func() { o.t++; o.b1t, o.b2t = b1t, b2t }
}

func (o *optimizer) reset() { o.t, o.b1t, o.b2t = 0, 0, 0 }

// checkBatch validates a batch as nn does: n ≥ 1 samples of inSize finite
// features and (when y is not nil) n labels in [0, classes).
func checkBatch(x []float32, y []int32, inSize, classes int) error {
	n := len(y)
	if n < 1 {
		return fmt.Errorf("%w: empty batch", nn.ErrShape)
	}
	if n > maxBatch {
		return fmt.Errorf("%w: %d samples in one call, at most %d", nn.ErrShape, n, maxBatch)
	}
	if len(x) != n*inSize {
		return fmt.Errorf("%w: %d input values for %d samples of %d features", nn.ErrShape, len(x), n, inSize)
	}
	if i := f32.FirstNonFinite(x); i >= 0 {
		return fmt.Errorf("%w: input sample %d feature %d is %v", nn.ErrNonFinite, i/inSize, i%inSize, x[i])
	}
	for i, l := range y {
		if l < 0 || int(l) >= classes {
			return fmt.Errorf("%w: sample %d has label %d, want 0..%d", nn.ErrLabel, i, l, classes-1)
		}
	}
	return nil
}
