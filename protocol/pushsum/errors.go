package pushsum

import "errors"

var (
	// ErrTag reports a frame whose first byte is not Tag.
	ErrTag = errors.New("pushsum: not a push-sum frame")
	// ErrUnknownType reports a message type this codec does not know.
	ErrUnknownType = errors.New("pushsum: unknown message type")
	// ErrTruncated reports a frame shorter than its fields.
	ErrTruncated = errors.New("pushsum: truncated frame")
	// ErrTrailing reports bytes after the last field.
	ErrTrailing = errors.New("pushsum: trailing bytes")
	// ErrField reports a field out of its range (negative, non-finite or
	// too large mass).
	ErrField = errors.New("pushsum: field out of range")
	// ErrBudget reports a share beyond a neighbour's per-round budget.
	ErrBudget = errors.New("pushsum: over the per-round budget")
	// ErrConfig reports an invalid Config.
	ErrConfig = errors.New("pushsum: invalid config")
	// ErrAddressed reports a message addressed to another peer, or from
	// this peer itself.
	ErrAddressed = errors.New("pushsum: misaddressed message")
)
