package gossip

import (
	"fmt"

	"github.com/peerlearn/peerlearn/internal/modelwire"
	"github.com/peerlearn/peerlearn/internal/wire"
)

// Wire format of a message header, big-endian, version CodecVersion:
//
//	version u8   CodecVersion
//	type    u8   MsgType (MsgModel)
//	from    [32] sender ID
//	age     u64  0..MaxAge (MsgRound: the round)
//	degree  u16  MsgRound only: the sender's degree, 1..MaxDegree
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
	MaxArchLen = modelwire.MaxArchLen
	// MaxParams bounds a model's parameter count (256 MiB of float32).
	MaxParams = modelwire.MaxParams
	// MaxAge bounds a model's age (it fits an int on every platform Go
	// targets with 64-bit ints, wasm included).
	MaxAge = 1 << 53
	// MaxDegree bounds a MsgRound's degree (an overlay has at most 2L
	// neighbours; a simulated graph a few hundred).
	MaxDegree = 4096
	// MaxMessageSize bounds an encoded header.
	MaxMessageSize = 256

	baseSize = modelwire.OpeningSize + 8
)

// codec is the part of gossip's wire format that the model protocols
// share (internal/modelwire), in this package's limits and errors.
var codec = modelwire.Codec{
	Version: CodecVersion, MaxMessageSize: MaxMessageSize,
	Known: func(t uint8) bool { return MsgType(t).known() },
	Errors: modelwire.Errors{
		Version: ErrCodecVersion, Type: ErrUnknownType, Truncated: ErrTruncated,
		Trailing: ErrTrailing, Oversized: ErrOversized, Field: ErrField,
	},
}

// Encode returns the wire form of m's header (not To or Params). It
// refuses a message Decode would refuse.
func Encode(m Message) ([]byte, error) { return AppendEncode(nil, m) }

// AppendEncode appends the wire form of m to b.
func AppendEncode(b []byte, m Message) ([]byte, error) {
	if err := checkFields(&m); err != nil {
		return b, err
	}
	w := wire.Writer{B: b}
	codec.PutOpening(&w, uint8(m.Type), m.From[:])
	w.U64(m.Age)
	if m.Type == MsgRound {
		w.U16(m.Degree)
	}
	codec.PutModel(&w, m.Arch, m.NumParams)
	return w.B, nil
}

// EncodedSize returns len(Encode(m)) for a valid m, without encoding.
func EncodedSize(m Message) int {
	if m.Type == MsgRound {
		return baseSize + 2 + modelwire.ModelSize(m.Arch)
	}
	return baseSize + modelwire.ModelSize(m.Arch)
}

// WireBytes is what m costs on the wire: header plus payload.
func WireBytes(m Message) int64 { return int64(EncodedSize(m)) + m.PayloadBytes() }

// Decode parses one message header; the transport then reads
// m.PayloadBytes() of payload into Params.
func Decode(b []byte) (Message, error) {
	var m Message
	r, t := codec.Open(b, m.From[:])
	m.Type = MsgType(t)
	m.Age = r.U64()
	if m.Type == MsgRound {
		m.Degree = r.U16()
	}
	m.Arch, m.NumParams = codec.ReadModel(&r)
	if err := codec.End(&r, len(b)); err != nil {
		return Message{}, err
	}
	if err := checkFields(&m); err != nil {
		return Message{}, err
	}
	return m, nil
}

// checkFields applies the value rules shared by Encode, Decode and Step.
func checkFields(m *Message) error {
	if err := codec.CheckType(uint8(m.Type)); err != nil {
		return err
	}
	if m.Age > MaxAge {
		return fmt.Errorf("%w: age %d", ErrField, m.Age)
	}
	if (m.Type == MsgRound) != (m.Degree > 0) || m.Degree > MaxDegree {
		return fmt.Errorf("%w: %v with degree %d", ErrField, m.Type, m.Degree)
	}
	return codec.CheckModel(m.Arch, m.NumParams)
}
