package simnet

import "errors"

// Sentinel errors, wrapped with %w; test with errors.Is.
var (
	// ErrPast: an event scheduled before the current virtual time.
	ErrPast = errors.New("simnet: event in the past")
	// ErrUnknownNode: an address that was never attached.
	ErrUnknownNode = errors.New("simnet: unknown node")
	// ErrDuplicate: an address attached twice.
	ErrDuplicate = errors.New("simnet: node already attached")
	// ErrCrashed: the node has crashed.
	ErrCrashed = errors.New("simnet: node crashed")
	// ErrInvalid: a configuration or argument out of range.
	ErrInvalid = errors.New("simnet: invalid argument")
)
