package evalreq

import "errors"

// Errors returned by the package, wrapped with %w; test with errors.Is.
var (
	// ErrConfig: a configuration is invalid.
	ErrConfig = errors.New("evalreq: invalid configuration")
	// ErrNotForMe: a message is addressed to another peer.
	ErrNotForMe = errors.New("evalreq: message addressed to another peer")
	// ErrUnexpected: a message of the wrong type for this call, or a reply
	// nobody asked for (unknown request ID or sender, or a second reply).
	ErrUnexpected = errors.New("evalreq: unexpected message")
	// ErrBadResult: Answer was given a loss or accuracy outside its range.
	ErrBadResult = errors.New("evalreq: invalid evaluation result")
	// ErrTargets: a poll's target list is empty, repeats a peer or holds
	// the requester itself.
	ErrTargets = errors.New("evalreq: invalid poll targets")

	// ErrCodecVersion: the encoded message has an unknown codec version.
	ErrCodecVersion = errors.New("evalreq: unknown codec version")
	// ErrUnknownType: the message type is not one this codec knows.
	ErrUnknownType = errors.New("evalreq: unknown message type")
	// ErrTruncated: the input ends before the message does.
	ErrTruncated = errors.New("evalreq: truncated message")
	// ErrTrailing: bytes follow the message.
	ErrTrailing = errors.New("evalreq: trailing bytes after message")
	// ErrOversized: the input or a field exceeds its limit.
	ErrOversized = errors.New("evalreq: message or field too large")
	// ErrField: a field holds a value the protocol does not allow.
	ErrField = errors.New("evalreq: invalid field value")
)
