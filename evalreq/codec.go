package evalreq

import (
	"encoding/binary"
	"fmt"
	"math"
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
	b = append(b, CodecVersion, byte(m.Type))
	b = append(b, m.From[:]...)
	b = binary.BigEndian.AppendUint64(b, m.ReqID)
	b = binary.BigEndian.AppendUint64(b, m.Round)
	switch m.Type {
	case MsgEvalRequest:
		b = append(b, byte(len(m.Model.Arch)))
		b = append(b, m.Model.Arch...)
		b = binary.BigEndian.AppendUint32(b, m.Model.NumParams)
	case MsgEvalResult:
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(m.Loss))
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(m.Accuracy))
		b = binary.BigEndian.AppendUint32(b, m.Samples)
	case MsgEvalRefused:
		b = append(b, byte(m.Reason))
	}
	return b, nil
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
	r := reader{b: b, ok: true}
	if v := r.u8(); r.ok && v != CodecVersion {
		return m, fmt.Errorf("%w: %d", ErrCodecVersion, v)
	}
	m.Type = MsgType(r.u8())
	if r.ok && !m.Type.known() {
		return m, fmt.Errorf("%w: %d", ErrUnknownType, uint8(m.Type))
	}
	r.bytes(m.From[:])
	m.ReqID = r.u64()
	m.Round = r.u64()
	switch m.Type {
	case MsgEvalRequest:
		n := int(r.u8())
		if r.ok && n == 0 {
			return Message{}, fmt.Errorf("%w: empty arch tag", ErrField)
		}
		if r.ok && n > MaxArchLen {
			return Message{}, fmt.Errorf("%w: arch tag of %d bytes", ErrOversized, n)
		}
		m.Model.Arch = string(r.next(n))
		m.Model.NumParams = r.u32()
	case MsgEvalResult:
		m.Loss = math.Float64frombits(r.u64())
		m.Accuracy = math.Float64frombits(r.u64())
		m.Samples = r.u32()
	case MsgEvalRefused:
		m.Reason = Reason(r.u8())
	}
	if !r.ok {
		return Message{}, fmt.Errorf("%w: %d bytes", ErrTruncated, len(b))
	}
	if len(r.b) != 0 {
		return Message{}, fmt.Errorf("%w: %d", ErrTrailing, len(r.b))
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

// reader consumes b; after the first short read ok is false and every
// later read returns zeros.
type reader struct {
	b  []byte
	ok bool
}

func (r *reader) next(n int) []byte {
	if !r.ok || len(r.b) < n {
		r.ok = false
		return make([]byte, n)
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u8() uint8      { return r.next(1)[0] }
func (r *reader) u32() uint32    { return binary.BigEndian.Uint32(r.next(4)) }
func (r *reader) u64() uint64    { return binary.BigEndian.Uint64(r.next(8)) }
func (r *reader) bytes(p []byte) { copy(p, r.next(len(p))) }
