package gossip

import (
	"fmt"

	"github.com/peerlearn/peerlearn/internal/wire"
)

// Wire format of a message header, big-endian, version CodecVersion:
//
//	version u8   CodecVersion
//	type    u8   MsgType (MsgModel)
//	from    [32] sender ID
//	age     u64  0..MaxAge
//	archlen u8   1..MaxArchLen
//	arch    archlen bytes
//	nparams u32  1..MaxParams
//
// Decode accepts exactly what Encode produces: any other input is an
// error, so decoding then encoding returns the input.
const (
	// CodecVersion is the version byte this codec writes and reads.
	CodecVersion = 1
	// MaxArchLen bounds the architecture tag, in bytes.
	MaxArchLen = 128
	// MaxParams bounds a model's parameter count (256 MiB of float32).
	MaxParams = 1 << 26
	// MaxAge bounds a model's age (it fits an int on every platform Go
	// targets with 64-bit ints, wasm included).
	MaxAge = 1 << 53
	// MaxMessageSize bounds an encoded header.
	MaxMessageSize = 256

	baseSize = 2 + 32 + 8
)

// Encode returns the wire form of m's header (not To or Params). It
// refuses a message Decode would refuse.
func Encode(m Message) ([]byte, error) { return AppendEncode(nil, m) }

// AppendEncode appends the wire form of m to b.
func AppendEncode(b []byte, m Message) ([]byte, error) {
	if err := checkFields(&m); err != nil {
		return b, err
	}
	w := wire.Writer{B: b}
	w.U8(CodecVersion)
	w.U8(byte(m.Type))
	w.Bytes(m.From[:])
	w.U64(m.Age)
	w.U8(byte(len(m.Arch)))
	w.String(m.Arch)
	w.U32(m.NumParams)
	return w.B, nil
}

// EncodedSize returns len(Encode(m)) for a valid m, without encoding.
func EncodedSize(m Message) int { return baseSize + 1 + len(m.Arch) + 4 }

// WireBytes is what m costs on the wire: header plus payload.
func WireBytes(m Message) int64 { return int64(EncodedSize(m)) + m.PayloadBytes() }

// Decode parses one message header; the transport then reads
// m.PayloadBytes() of payload into Params.
func Decode(b []byte) (Message, error) {
	var m Message
	if len(b) > MaxMessageSize {
		return m, fmt.Errorf("%w: %d bytes", ErrOversized, len(b))
	}
	r := wire.NewReader(b)
	if v := r.U8(); r.OK() && v != CodecVersion {
		return m, fmt.Errorf("%w: %d", ErrCodecVersion, v)
	}
	m.Type = MsgType(r.U8())
	if r.OK() && !m.Type.known() {
		return m, fmt.Errorf("%w: %d", ErrUnknownType, uint8(m.Type))
	}
	r.Fill(m.From[:])
	m.Age = r.U64()
	n := int(r.U8())
	if r.OK() && n == 0 {
		return Message{}, fmt.Errorf("%w: empty arch tag", ErrField)
	}
	if r.OK() && n > MaxArchLen {
		return Message{}, fmt.Errorf("%w: arch tag of %d bytes", ErrOversized, n)
	}
	m.Arch = r.String(n)
	m.NumParams = r.U32()
	if !r.OK() {
		return Message{}, fmt.Errorf("%w: %d bytes", ErrTruncated, len(b))
	}
	if r.Len() != 0 {
		return Message{}, fmt.Errorf("%w: %d", ErrTrailing, r.Len())
	}
	if err := checkFields(&m); err != nil {
		return Message{}, err
	}
	return m, nil
}

// checkFields applies the value rules shared by Encode, Decode and Step.
func checkFields(m *Message) error {
	switch {
	case !m.Type.known():
		return fmt.Errorf("%w: %d", ErrUnknownType, uint8(m.Type))
	case m.Age > MaxAge:
		return fmt.Errorf("%w: age %d", ErrField, m.Age)
	case len(m.Arch) == 0:
		return fmt.Errorf("%w: empty arch tag", ErrField)
	case len(m.Arch) > MaxArchLen:
		return fmt.Errorf("%w: arch tag of %d bytes", ErrOversized, len(m.Arch))
	case m.NumParams == 0:
		return fmt.Errorf("%w: no parameters", ErrField)
	case m.NumParams > MaxParams:
		return fmt.Errorf("%w: %d parameters", ErrOversized, m.NumParams)
	}
	return nil
}
