package nn

import "errors"

// Sentinel errors. Functions wrap them with %w and add detail, so callers
// test with errors.Is and print the wrapped message.
var (
	// ErrShape: a slice length or a tensor shape does not match the model.
	ErrShape = errors.New("nn: shape mismatch")
	// ErrLabel: a label is outside [0, classes).
	ErrLabel = errors.New("nn: label out of range")
	// ErrNonFinite: a NaN or an infinity in inputs, parameters, gradients or the loss.
	ErrNonFinite = errors.New("nn: non-finite value")
	// ErrArch: an unknown architecture name or an invalid layer stack.
	ErrArch = errors.New("nn: invalid architecture")
	// ErrMismatch: parameters belong to another architecture.
	ErrMismatch = errors.New("nn: architecture mismatch")
	// ErrFormat: a serialised model is truncated or malformed.
	ErrFormat = errors.New("nn: malformed model encoding")
	// ErrVersion: a serialised model has a format version this code cannot read.
	ErrVersion = errors.New("nn: unsupported model format version")
	// ErrChecksum: a serialised model's checksum does not match its bytes.
	ErrChecksum = errors.New("nn: model checksum mismatch")
	// ErrConfig: an invalid hyperparameter or option.
	ErrConfig = errors.New("nn: invalid configuration")
)
