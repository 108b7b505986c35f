package signal

import "errors"

// Errors returned by the package, wrapped with %w; test with errors.Is.
var (
	// ErrMalformed: a message is not well-formed JSON of the expected
	// shape, or a field is out of range.
	ErrMalformed = errors.New("signal: malformed message")
	// ErrVersion: a message has another protocol version.
	ErrVersion = errors.New("signal: unsupported protocol version")
	// ErrTooLarge: a message is longer than MaxMessageSize (or a
	// configured lower limit).
	ErrTooLarge = errors.New("signal: message too large")
	// ErrBadSignature: a hello's public key does not hash to its ID, or
	// its signature over the challenge does not verify.
	ErrBadSignature = errors.New("signal: bad hello signature")
	// ErrRefused: the server refused something; the error is a *Refusal
	// carrying the code.
	ErrRefused = errors.New("signal: refused by the server")
	// ErrProtocol: the other side broke the protocol (an unexpected
	// message type, a welcome for another task).
	ErrProtocol = errors.New("signal: protocol violation")
	// ErrClosed: the client was closed, or its connection ended.
	ErrClosed = errors.New("signal: connection closed")
	// ErrConfig: a configuration is invalid.
	ErrConfig = errors.New("signal: invalid configuration")
)
