package nn

// Backend is a trainable model on some compute device: this package's
// pure-Go Trainer, and later a libtorch/GPU one. Every backend uses the
// flat parameter layout documented on Tensor, so parameters move between
// backends (and peers) as one []float32 or one encoding (AppendEncoded).
//
// Concurrency: a Backend is not safe for concurrent use. One goroutine
// owns it and makes every call; the yield function is called on that
// goroutine, between batches, and must not call back into the Backend.
// Params and SetParams copy, so after Params returns the caller may send
// or average its copy while the Backend keeps training, and the slice
// given to SetParams may be reused as soon as it returns.
type Backend interface {
	// Arch returns the architecture, which fixes the parameter layout.
	Arch() Arch
	// NumParams returns the length of the flat parameter slice.
	NumParams() int
	// Params copies the parameters into dst, which must have NumParams values.
	Params(dst []float32) error
	// SetParams replaces the parameters by a copy of src (NumParams finite
	// values); on error nothing changes.
	SetParams(src []float32) error
	// TrainBatch takes one optimiser step on the mean cross-entropy of the
	// batch x ([n][features], HWC per sample), y ([n] labels) and returns
	// that loss, computed before the step. On error (bad shapes, labels,
	// non-finite inputs, loss or gradients) the parameters are unchanged.
	TrainBatch(x []float32, y []int32) (float32, error)
	// Evaluate returns loss and accuracies on (x, y), batched.
	Evaluate(x []float32, y []int32) (Metrics, error)
	// HessianDiag writes the empirical-Fisher estimate of the Hessian
	// diagonal on (x, y) into dst (NumParams values, parameter layout).
	HessianDiag(x []float32, y []int32, dst []float32) error
	// ResetOptimizer drops the optimiser's state (momentum, moments).
	ResetOptimizer()
	// SetYield sets a function called between batches of the multi-batch
	// calls (Evaluate, HessianDiag, and the pure-Go TrainEpoch), so that a
	// single-threaded host (Go in a browser) can let its event loop run.
	// nil means none.
	SetYield(yield func())
}

var _ Backend = (*Trainer)(nil)
