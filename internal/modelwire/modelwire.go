// Package modelwire is the part of the wire format that the model
// protocols' codecs (protocol/mep, plexus, evalreq and gossip) have in
// common, written once. Every message of theirs opens with
//
//	version u8   the protocol's codec version
//	type    u8   a message type the protocol defines
//	from    [32] sender ID
//
// and describes a model, where it does, as
//
//	archlen u8   1..MaxArchLen
//	arch    archlen bytes
//	nparams u32  1..MaxParams
//
// Each protocol keeps its own version byte, message size limit and error
// values (a Codec holds them), so errors still say which protocol refused
// what, and its own layout around these pieces.
package modelwire

import (
	"errors"
	"fmt"

	"github.com/peerlearn/peerlearn/internal/wire"
)

const (
	// OpeningSize is the encoded size of the version, type and sender.
	OpeningSize = 1 + 1 + 32
	// MaxArchLen bounds the architecture tag, in bytes.
	MaxArchLen = 128
	// MaxParams bounds a model's parameter count (256 MiB of float32).
	MaxParams = 1 << 26
)

// ModelSize returns the encoded size of a model description.
func ModelSize(arch string) int { return 1 + len(arch) + 4 }

// Errors are a protocol's sentinels, one for each way a message is
// refused.
type Errors struct {
	// Version: an unknown codec version.
	Version error
	// Type: a message type the protocol does not define.
	Type error
	// Truncated: the input ends before the message does.
	Truncated error
	// Trailing: bytes follow the message.
	Trailing error
	// Oversized: the input or a field exceeds its limit.
	Oversized error
	// Field: a field holds a value the protocol does not allow.
	Field error
}

// Codec is one protocol's version, size limit and errors.
type Codec struct {
	// Version is the version byte written and required.
	Version uint8
	// MaxMessageSize bounds an encoded message.
	MaxMessageSize int
	// Known reports whether a type byte is one the protocol defines.
	Known func(uint8) bool
	// Errors are the protocol's sentinels.
	Errors Errors
}

// PutOpening appends the version, the type and the sender.
func (c *Codec) PutOpening(w *wire.Writer, typ uint8, from []byte) {
	w.U8(c.Version)
	w.U8(typ)
	w.Bytes(from)
}

// PutModel appends a model description.
func (c *Codec) PutModel(w *wire.Writer, arch string, nparams uint32) {
	w.U8(uint8(len(arch)))
	w.String(arch)
	w.U32(nparams)
}

// Open starts decoding b: it refuses an oversized input, reads the
// opening and fills from with the sender. A refusal is the returned
// Reader's sticky error, which End reports; the type is valid only if End
// returns nil.
func (c *Codec) Open(b []byte, from []byte) (wire.Reader, uint8) {
	r := wire.NewReader(b)
	if len(b) > c.MaxMessageSize {
		r.Fail(fmt.Errorf("%w: %d bytes", c.Errors.Oversized, len(b)))
	}
	if v := r.U8(); r.OK() && v != c.Version {
		r.Fail(fmt.Errorf("%w: %d", c.Errors.Version, v))
	}
	typ := r.U8()
	if r.OK() && !c.Known(typ) {
		r.Fail(fmt.Errorf("%w: %d", c.Errors.Type, typ))
	}
	r.Fill(from)
	return r, typ
}

// ReadModel reads a model description, refusing an empty or oversized
// architecture tag before reading it.
func (c *Codec) ReadModel(r *wire.Reader) (arch string, nparams uint32) {
	n := int(r.U8())
	if r.OK() && n == 0 {
		r.Fail(fmt.Errorf("%w: empty arch tag", c.Errors.Field))
	}
	if r.OK() && n > MaxArchLen {
		r.Fail(fmt.Errorf("%w: arch tag of %d bytes", c.Errors.Oversized, n))
	}
	return r.String(n), r.U32()
}

// End finishes decoding an input of n bytes: the first refusal, in the
// protocol's errors, or a truncation or trailing bytes; nil when the input
// was read exactly.
func (c *Codec) End(r *wire.Reader, n int) error {
	if err := r.Err(); err != nil {
		if errors.Is(err, wire.ErrTruncated) {
			return fmt.Errorf("%w: %d bytes", c.Errors.Truncated, n)
		}
		return err
	}
	if r.Len() != 0 {
		return fmt.Errorf("%w: %d", c.Errors.Trailing, r.Len())
	}
	return nil
}

// CheckType refuses a type the protocol does not define.
func (c *Codec) CheckType(typ uint8) error {
	if !c.Known(typ) {
		return fmt.Errorf("%w: %d", c.Errors.Type, typ)
	}
	return nil
}

// CheckModel applies the value rules of a model description, the same on
// encoding and decoding.
func (c *Codec) CheckModel(arch string, nparams uint32) error {
	switch {
	case len(arch) == 0:
		return fmt.Errorf("%w: empty arch tag", c.Errors.Field)
	case len(arch) > MaxArchLen:
		return fmt.Errorf("%w: arch tag of %d bytes", c.Errors.Oversized, len(arch))
	case nparams == 0:
		return fmt.Errorf("%w: no parameters", c.Errors.Field)
	case nparams > MaxParams:
		return fmt.Errorf("%w: %d parameters", c.Errors.Oversized, nparams)
	}
	return nil
}
