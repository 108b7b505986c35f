package data

import (
	"errors"

	"github.com/peerlearn/peerlearn/types/partition"
)

// Sentinel errors. Every error the package returns wraps one of them (with
// %w), so callers can test the kind with errors.Is and still print details.
var (
	// ErrFormat: the bytes are not a well-formed IDX file of the expected
	// kind (bad magic, type, dimensions, length, or broken gzip).
	ErrFormat = errors.New("data: malformed IDX")
	// ErrTooLarge: a header announces more data than MaxIDXBytes.
	ErrTooLarge = errors.New("data: IDX too large")
	// ErrLabel: a label is not below the number of classes.
	ErrLabel = errors.New("data: label out of range")
	// ErrMismatch: images and labels disagree (count) or train and test
	// disagree (shape).
	ErrMismatch = errors.New("data: images and labels disagree")
	// ErrMissing: a dataset file is not there; run `make data`.
	ErrMissing = errors.New("data: dataset file missing")
	// ErrUnknown: no dataset of that name.
	ErrUnknown = errors.New("data: unknown dataset")
	// ErrInvalid: a bad argument (client count, alpha, shard count, buffer
	// size, index, a malformed Dataset, a nil rng).
	ErrInvalid = errors.New("data: invalid argument")
	// ErrSpec: a partition spec that does not parse; the grammar's own
	// error (types/partition), so that one errors.Is serves both.
	ErrSpec = partition.ErrSpec
)
