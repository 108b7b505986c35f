package wire

import "errors"

var (
	// ErrTruncated reports a read past the end of the input.
	ErrTruncated = errors.New("wire: truncated input")
	// ErrTrailing reports bytes left after the last field.
	ErrTrailing = errors.New("wire: trailing bytes")
)
