package task

import "errors"

// Errors returned by the package, wrapped with %w; test with errors.Is.
var (
	// ErrInvalid: a spec field is out of range, unknown or inconsistent;
	// the message names the field.
	ErrInvalid = errors.New("task: invalid spec")
	// ErrVersion: the spec's format version is not SpecVersion.
	ErrVersion = errors.New("task: unsupported spec version")
	// ErrMalformed: the encoded spec is not well-formed JSON of the
	// expected shape (unknown field, wrong type, trailing data).
	ErrMalformed = errors.New("task: malformed spec")
	// ErrTooLarge: the encoded spec is longer than MaxSpecSize.
	ErrTooLarge = errors.New("task: spec too large")
)
