package overlay

import "errors"

// Sentinel errors. Functions wrap them with %w and context; test with
// errors.Is.
var (
	// ErrInvalidConfig: a Config field is out of range.
	ErrInvalidConfig = errors.New("overlay: invalid config")
	// ErrMalformed: bytes that are not a valid encoded Message, or a
	// Message whose fields do not fit its type.
	ErrMalformed = errors.New("overlay: malformed message")
	// ErrVersion: an encoded message of a codec version this build does
	// not speak.
	ErrVersion = errors.New("overlay: unknown codec version")
	// ErrUnknownType: a message type this build does not know.
	ErrUnknownType = errors.New("overlay: unknown message type")
	// ErrTooLarge: a message or payload over its size limit.
	ErrTooLarge = errors.New("overlay: message too large")
	// ErrTrailingData: bytes left over after a complete message.
	ErrTrailingData = errors.New("overlay: trailing data after message")
	// ErrMisaddressed: a message handed to a node it is not for (To is
	// another node, or From is the node itself).
	ErrMisaddressed = errors.New("overlay: message not addressed to this node")
	// ErrStopped: the node has left the overlay and takes no more input.
	ErrStopped = errors.New("overlay: node has left")
	// ErrBadSpace: a ring space outside 0..Spaces-1.
	ErrBadSpace = errors.New("overlay: ring space out of range")
	// ErrBadRecord: a peer record (admission token) that does not verify
	// (records.go).
	ErrBadRecord = errors.New("overlay: bad peer record")
	// ErrNoRecord: a message naming an ID without a peer record, under
	// admitted placement (records.go).
	ErrNoRecord = errors.New("overlay: ID without a peer record")
)
