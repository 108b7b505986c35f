package evalreq

import (
	"fmt"
	"math"

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
	MaxArchLen = 128
	// MaxParams bounds a model's parameter count (256 MiB of float32).
	MaxParams = 1 << 26
	// MaxMessageSize bounds an encoded message.
	MaxMessageSize = 256

	baseSize = 2 + 32 + 8 + 8
)

// Encode returns the wire form of m (not To or Params). It refuses a
// message Decode would refuse.
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
	w.U64(m.ReqID)
	w.U64(m.Round)
	switch m.Type {
	case MsgEvalRequest:
		w.U8(byte(len(m.Model.Arch)))
		w.String(m.Model.Arch)
		w.U32(m.Model.NumParams)
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
		return baseSize + 1 + len(m.Model.Arch) + 4
	case MsgEvalResult:
		return baseSize + 8 + 8 + 4
	}
	return baseSize + 1
}

// Decode parses one message. A request has no Params yet: the transport
// reads m.PayloadBytes() of payload and fills them in.
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
	m.ReqID = r.U64()
	m.Round = r.U64()
	switch m.Type {
	case MsgEvalRequest:
		n := int(r.U8())
		if r.OK() && n == 0 {
			return Message{}, fmt.Errorf("%w: empty arch tag", ErrField)
		}
		if r.OK() && n > MaxArchLen {
			return Message{}, fmt.Errorf("%w: arch tag of %d bytes", ErrOversized, n)
		}
		m.Model.Arch = r.String(n)
		m.Model.NumParams = r.U32()
	case MsgEvalResult:
		m.Loss = r.F64()
		m.Accuracy = r.F64()
		m.Samples = r.U32()
	case MsgEvalRefused:
		m.Reason = Reason(r.U8())
	}
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

// checkFields applies the value rules shared by Encode and Decode.
func checkFields(m *Message) error {
	if !m.Type.known() {
		return fmt.Errorf("%w: %d", ErrUnknownType, uint8(m.Type))
	}
	if m.ReqID == 0 {
		return fmt.Errorf("%w: request ID 0", ErrField)
	}
	switch m.Type {
	case MsgEvalRequest:
		return checkHeader(m.Model)
	case MsgEvalResult:
		return checkResult(m.Loss, m.Accuracy, m.Samples)
	case MsgEvalRefused:
		if !m.Reason.known() {
			return fmt.Errorf("%w: reason %d", ErrField, uint8(m.Reason))
		}
	}
	return nil
}

func checkHeader(h ModelHeader) error {
	switch {
	case len(h.Arch) == 0:
		return fmt.Errorf("%w: empty arch tag", ErrField)
	case len(h.Arch) > MaxArchLen:
		return fmt.Errorf("%w: arch tag of %d bytes", ErrOversized, len(h.Arch))
	case h.NumParams == 0:
		return fmt.Errorf("%w: no parameters", ErrField)
	case h.NumParams > MaxParams:
		return fmt.Errorf("%w: %d parameters", ErrOversized, h.NumParams)
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
