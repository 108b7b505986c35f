package aggregate

import "errors"

// Errors returned by Aggregate, and the reasons carried by a Refusal. They
// are wrapped with %w; test with errors.Is.
var (
	// ErrInvalidSelf: the peer's own contribution failed validation; the
	// wrapped error says why. Aggregate leaves out untouched.
	ErrInvalidSelf = errors.New("aggregate: invalid self contribution")
	// ErrOutLength: out is not as long as self.Params.
	ErrOutLength = errors.New("aggregate: out length differs from self")
	// ErrZeroWeight: every weight of the accepted contributions is zero
	// (for example no contributor reports any data), so no mean exists.
	ErrZeroWeight = errors.New("aggregate: all weights are zero")
	// ErrConfig: an aggregator's configuration is invalid.
	ErrConfig = errors.New("aggregate: invalid configuration")
	// ErrUnknown: New was given an unknown aggregator name.
	ErrUnknown = errors.New("aggregate: unknown aggregator")

	// ErrNonFinite: a parameter (or Hessian entry) is NaN or infinite.
	ErrNonFinite = errors.New("aggregate: non-finite value")
	// ErrArch: the architecture tag differs from self's.
	ErrArch = errors.New("aggregate: architecture tag mismatch")
	// ErrLength: the parameter vector length differs from self's.
	ErrLength = errors.New("aggregate: parameter length mismatch")
	// ErrEmpty: the parameter vector is empty.
	ErrEmpty = errors.New("aggregate: empty parameter vector")
	// ErrDuplicate: the same peer contributes twice (or a neighbour has
	// self's ID); only the first is used.
	ErrDuplicate = errors.New("aggregate: duplicate contributor")
	// ErrDataSize: DataSize is negative.
	ErrDataSize = errors.New("aggregate: negative data size")
	// ErrConfidence: FedLay's inputs are out of range (DataConf not in
	// (0,1], Period not positive).
	ErrConfidence = errors.New("aggregate: invalid confidence inputs")
	// ErrHessian: DecHW needs a Hessian diagonal of the parameters' length
	// with finite, non-negative entries, and this one is missing or bad.
	ErrHessian = errors.New("aggregate: missing or invalid Hessian diagonal")
	// ErrLabelHist: a label histogram is empty, negative or all zero.
	ErrLabelHist = errors.New("aggregate: invalid label histogram")
)
