package evalreq

import (
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/internal/modelwire"
	"github.com/peerlearn/peerlearn/internal/wire"
)

// Wire format of a message, big-endian, version CodecVersion:
//
//	version u8   CodecVersion
//	type    u8   MsgType
//	from    [32] sender ID
//	reqid   u64  request ID, non-zero
//	round   u64  requester's round
//
// then, by type:
//
//	MsgEvalRequest  archlen u8 (1..MaxArchLen), arch, nparams u32 (1..MaxParams)
//	MsgEvalResult   loss f64 (finite, >= 0), accuracy f64 ([0, 1]),
//	                samples u32 (>= 1)
//	MsgEvalRefused  reason u8 (a known Reason)
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
	// MaxMessageSize bounds an encoded message.
	MaxMessageSize = 256

	baseSize = modelwire.OpeningSize + 8 + 8
)

// codec is the part of the evaluation protocol's wire format that the
// model protocols share (internal/modelwire), in this package's limits
// and errors.
var codec = modelwire.Codec{
	Version: CodecVersion, MaxMessageSize: MaxMessageSize,
	Known: func(t uint8) bool { return MsgType(t).known() },
	Errors: modelwire.Errors{
		Version: ErrCodecVersion, Type: ErrUnknownType, Truncated: ErrTruncated,
		Trailing: ErrTrailing, Oversized: ErrOversized, Field: ErrField,
	},
}

// Encode returns the wire form of m (not To or Params). It refuses a
// message Decode would refuse.
func Encode(m Message) ([]byte, error) { return AppendEncode(nil, m) }

// AppendEncode appends the wire form of m to b.
func AppendEncode(b []byte, m Message) ([]byte, error) {
	if err := checkFields(&m); err != nil {
		return b, err
	}
	w := wire.Writer{B: b}
	codec.PutOpening(&w, uint8(m.Type), m.From[:])
	w.U64(m.ReqID)
	w.U64(m.Round)
	switch m.Type {
	case MsgEvalRequest:
		codec.PutModel(&w, m.Model.Arch, m.Model.NumParams)
	case MsgEvalResult:
		w.F64(m.Loss)
		w.F64(m.Accuracy)
		w.U32(m.Samples)
	case MsgEvalRefused:
		w.U8(byte(m.Reason))
	}
	return w.B, nil
}

// EncodedSize returns len(Encode(m)) for a valid m, without encoding.
func EncodedSize(m Message) int {
	switch m.Type {
	case MsgEvalRequest:
		return baseSize + modelwire.ModelSize(m.Model.Arch)
	case MsgEvalResult:
		return baseSize + 8 + 8 + 4
	}
	return baseSize + 1
}

// Decode parses one message. A request has no Params yet: the transport
// reads m.PayloadBytes() of payload and fills them in.
func Decode(b []byte) (Message, error) {
	var m Message
	r, t := codec.Open(b, m.From[:])
	m.Type = MsgType(t)
	m.ReqID = r.U64()
	m.Round = r.U64()
	switch m.Type {
	case MsgEvalRequest:
		m.Model.Arch, m.Model.NumParams = codec.ReadModel(&r)
	case MsgEvalResult:
		m.Loss = r.F64()
		m.Accuracy = r.F64()
		m.Samples = r.U32()
	case MsgEvalRefused:
		m.Reason = Reason(r.U8())
	}
	if err := codec.End(&r, len(b)); err != nil {
		return Message{}, err
	}
	if err := checkFields(&m); err != nil {
		return Message{}, err
	}
	return m, nil
}

// checkFields applies the value rules shared by Encode and Decode.
func checkFields(m *Message) error {
	if err := codec.CheckType(uint8(m.Type)); err != nil {
		return err
	}
	if m.ReqID == 0 {
		return fmt.Errorf("%w: request ID 0", ErrField)
	}
	switch m.Type {
	case MsgEvalRequest:
		return codec.CheckModel(m.Model.Arch, m.Model.NumParams)
	case MsgEvalResult:
		return checkResult(m.Loss, m.Accuracy, m.Samples)
	case MsgEvalRefused:
		if !m.Reason.known() {
			return fmt.Errorf("%w: reason %d", ErrField, uint8(m.Reason))
		}
	}
	return nil
}

func checkResult(loss, acc float64, samples uint32) error {
	switch {
	case !(loss >= 0) || math.IsInf(loss, 1):
		return fmt.Errorf("%w: loss %v", ErrField, loss)
	case !(acc >= 0 && acc <= 1):
		return fmt.Errorf("%w: accuracy %v", ErrField, acc)
	case samples == 0:
		return fmt.Errorf("%w: 0 samples", ErrField)
	}
	return nil
}
