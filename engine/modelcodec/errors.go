package modelcodec

import "errors"

var (
	// ErrConfig: a codec configuration out of range.
	ErrConfig = errors.New("modelcodec: bad configuration")
	// ErrVersion: an unknown format version.
	ErrVersion = errors.New("modelcodec: unknown version")
	// ErrKind: an unknown or unexpected encoding kind.
	ErrKind = errors.New("modelcodec: unknown encoding")
	// ErrLength: a parameter count, block size or element count that
	// disagrees with what was expected, or a short input.
	ErrLength = errors.New("modelcodec: bad length")
	// ErrTrailing: bytes after the encoding.
	ErrTrailing = errors.New("modelcodec: trailing bytes")
	// ErrValue: a non-finite or oversized scale or value, or an index out
	// of range or out of order.
	ErrValue = errors.New("modelcodec: bad value")
	// ErrUnknownReference: a delta against a model the receiver does not
	// hold; the sender must send a full model.
	ErrUnknownReference = errors.New("modelcodec: delta against an unknown reference")
)
