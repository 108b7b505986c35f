package mep

import "errors"

// Errors returned by the package, wrapped with %w; test with errors.Is.
var (
	// ErrConfig: the configuration is invalid.
	ErrConfig = errors.New("mep: invalid configuration")
	// ErrNeighbors: SetNeighbors was given self, a duplicate, a
	// non-positive period or too many neighbours.
	ErrNeighbors = errors.New("mep: invalid neighbour set")
	// ErrNotNeighbor: a message came from a peer that is not a current
	// neighbour; it is dropped.
	ErrNotNeighbor = errors.New("mep: message from a non-neighbour")
	// ErrNotForMe: a message is addressed to another peer.
	ErrNotForMe = errors.New("mep: message addressed to another peer")
	// ErrBadModel: a received model does not match the task, the
	// architecture, the parameter count or its fingerprint.
	ErrBadModel = errors.New("mep: model refused")
	// ErrBadReport: ReportTrained was given vectors of the wrong length.
	ErrBadReport = errors.New("mep: invalid trained model")

	// ErrCodecVersion: the encoded message has an unknown codec version.
	ErrCodecVersion = errors.New("mep: unknown codec version")
	// ErrUnknownType: the message type is not one this codec knows.
	ErrUnknownType = errors.New("mep: unknown message type")
	// ErrTruncated: the input ends before the message does.
	ErrTruncated = errors.New("mep: truncated message")
	// ErrTrailing: bytes follow the message.
	ErrTrailing = errors.New("mep: trailing bytes after message")
	// ErrOversized: the input or a field exceeds its limit.
	ErrOversized = errors.New("mep: message or field too large")
	// ErrField: a field holds a value the protocol does not allow.
	ErrField = errors.New("mep: invalid field value")
)
