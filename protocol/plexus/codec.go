package plexus

import (
	"fmt"

	"github.com/peerlearn/peerlearn/internal/modelwire"
	"github.com/peerlearn/peerlearn/internal/wire"
)

// Wire format of a message header, big-endian, version CodecVersion:
//
//	version   u8   CodecVersion
//	type      u8   MsgType
//	from      [32] sender ID
//	round     u64  1..MaxRound
//	bandwidth u64  >= 1
//
// then, by type:
//
//	MsgTrain       archlen u8 (1..MaxArchLen), arch, nparams u32 (1..MaxParams)
//	MsgTrained     attempt u8, archlen u8, arch, nparams u32,
//	               datasize u64 (1..MaxDataSize)
//	MsgAggregated  count u32 (>= 1)
//	MsgOver        count u32 (>= 1)
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
	// MaxDataSize bounds an advertised data-set size.
	MaxDataSize = 1 << 40
	// MaxRound bounds a round number.
	MaxRound = 1 << 48
	// MaxMessageSize bounds an encoded header.
	MaxMessageSize = 256

	baseSize = modelwire.OpeningSize + 8 + 8
)

// codec is the part of Plexus's wire format that the model protocols
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
	w.U64(m.Round)
	w.U64(m.Bandwidth)
	switch m.Type {
	case MsgTrain, MsgTrained:
		if m.Type == MsgTrained {
			w.U8(m.Attempt)
		}
		codec.PutModel(&w, m.Model.Arch, m.Model.NumParams)
		if m.Type == MsgTrained {
			w.U64(m.Model.DataSize)
		}
	case MsgAggregated, MsgOver:
		w.U32(m.Count)
	}
	return w.B, nil
}

// EncodedSize returns len(Encode(m)) for a valid m, without encoding.
func EncodedSize(m Message) int {
	switch m.Type {
	case MsgTrain:
		return baseSize + modelwire.ModelSize(m.Model.Arch)
	case MsgTrained:
		return baseSize + 1 + modelwire.ModelSize(m.Model.Arch) + 8
	}
	return baseSize + 4
}

// WireBytes is what m costs on the wire: header plus payload.
func WireBytes(m Message) int64 { return int64(EncodedSize(m)) + m.PayloadBytes() }

// Decode parses one message header. MsgTrain and MsgTrained have no
// Params yet: the transport reads m.PayloadBytes() and fills them in.
func Decode(b []byte) (Message, error) {
	var m Message
	r, t := codec.Open(b, m.From[:])
	m.Type = MsgType(t)
	m.Round = r.U64()
	m.Bandwidth = r.U64()
	switch m.Type {
	case MsgTrain, MsgTrained:
		if m.Type == MsgTrained {
			m.Attempt = r.U8()
		}
		m.Model.Arch, m.Model.NumParams = codec.ReadModel(&r)
		if m.Type == MsgTrained {
			m.Model.DataSize = r.U64()
		}
	case MsgAggregated, MsgOver:
		m.Count = r.U32()
	}
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
	switch {
	case m.Round == 0 || m.Round > MaxRound:
		return fmt.Errorf("%w: round %d", ErrField, m.Round)
	case m.Bandwidth == 0:
		return fmt.Errorf("%w: bandwidth 0", ErrField)
	}
	h := &m.Model
	switch m.Type {
	case MsgAggregated, MsgOver:
		if m.Count == 0 {
			return fmt.Errorf("%w: count 0", ErrField)
		}
		return nil
	case MsgTrain:
		if m.Attempt != 0 || h.DataSize != 0 {
			return fmt.Errorf("%w: attempt %d, data size %d in MsgTrain", ErrField, m.Attempt, h.DataSize)
		}
	case MsgTrained:
		if h.DataSize == 0 || h.DataSize > MaxDataSize {
			return fmt.Errorf("%w: data size %d", ErrField, h.DataSize)
		}
	}
	return codec.CheckModel(h.Arch, h.NumParams)
}
