package plexus

import (
	"encoding/binary"
	"fmt"
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
	// MaxDataSize bounds an advertised data-set size.
	MaxDataSize = 1 << 40
	// MaxRound bounds a round number.
	MaxRound = 1 << 48
	// MaxMessageSize bounds an encoded header.
	MaxMessageSize = 256

	baseSize = 2 + 32 + 8 + 8
)

// Encode returns the wire form of m's header (not To or Params). It
// refuses a message Decode would refuse.
func Encode(m Message) ([]byte, error) { return AppendEncode(nil, m) }

// AppendEncode appends the wire form of m to b.
func AppendEncode(b []byte, m Message) ([]byte, error) {
	if err := checkFields(&m); err != nil {
		return b, err
	}
	b = append(b, CodecVersion, byte(m.Type))
	b = append(b, m.From[:]...)
	b = binary.BigEndian.AppendUint64(b, m.Round)
	b = binary.BigEndian.AppendUint64(b, m.Bandwidth)
	switch m.Type {
	case MsgTrain, MsgTrained:
		if m.Type == MsgTrained {
			b = append(b, m.Attempt)
		}
		b = append(b, byte(len(m.Model.Arch)))
		b = append(b, m.Model.Arch...)
		b = binary.BigEndian.AppendUint32(b, m.Model.NumParams)
		if m.Type == MsgTrained {
			b = binary.BigEndian.AppendUint64(b, m.Model.DataSize)
		}
	case MsgAggregated:
		b = binary.BigEndian.AppendUint32(b, m.Count)
	}
	return b, nil
}

// EncodedSize returns len(Encode(m)) for a valid m, without encoding.
func EncodedSize(m Message) int {
	switch m.Type {
	case MsgTrain:
		return baseSize + 1 + len(m.Model.Arch) + 4
	case MsgTrained:
		return baseSize + 1 + 1 + len(m.Model.Arch) + 4 + 8
	}
	return baseSize + 4
}

// WireBytes is what m costs on the wire: header plus payload.
func WireBytes(m Message) int64 { return int64(EncodedSize(m)) + m.PayloadBytes() }

// Decode parses one message header. MsgTrain and MsgTrained have no
// Params yet: the transport reads m.PayloadBytes() and fills them in.
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
	m.Round = r.u64()
	m.Bandwidth = r.u64()
	switch m.Type {
	case MsgTrain, MsgTrained:
		if m.Type == MsgTrained {
			m.Attempt = r.u8()
		}
		n := int(r.u8())
		if r.ok && n == 0 {
			return Message{}, fmt.Errorf("%w: empty arch tag", ErrField)
		}
		if r.ok && n > MaxArchLen {
			return Message{}, fmt.Errorf("%w: arch tag of %d bytes", ErrOversized, n)
		}
		m.Model.Arch = string(r.next(n))
		m.Model.NumParams = r.u32()
		if m.Type == MsgTrained {
			m.Model.DataSize = r.u64()
		}
	case MsgAggregated:
		m.Count = r.u32()
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

// checkFields applies the value rules shared by Encode, Decode and Step.
func checkFields(m *Message) error {
	if !m.Type.known() {
		return fmt.Errorf("%w: %d", ErrUnknownType, uint8(m.Type))
	}
	switch {
	case m.Round == 0 || m.Round > MaxRound:
		return fmt.Errorf("%w: round %d", ErrField, m.Round)
	case m.Bandwidth == 0:
		return fmt.Errorf("%w: bandwidth 0", ErrField)
	}
	h := &m.Model
	switch m.Type {
	case MsgAggregated:
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
