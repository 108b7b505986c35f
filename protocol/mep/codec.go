package mep

import (
	"fmt"

	"github.com/peerlearn/peerlearn/internal/modelwire"
	"github.com/peerlearn/peerlearn/internal/wire"
)

// Wire format of a control message, big-endian, version CodecVersion:
//
//	version  u8   CodecVersion
//	type     u8   MsgType
//	from     [32] sender ID
//	mversion u64  model version, >= 1
//	fp       [32] fingerprint, non-zero
//
// and for MsgModel the header after that:
//
//	task     [32] task hash
//	archlen  u8   1..MaxArchLen
//	arch     archlen bytes
//	nparams  u32  1..MaxParams
//	flags    u8   bit 0: a Hessian follows; other bits 0
//	datasize u64  <= MaxDataSize
//	period   u32  1..MaxPeriod
//	dataconf f64  IEEE bits, in (0, 1]
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
	// MaxPeriod bounds an advertised period, in ticks.
	MaxPeriod = 1 << 30
	// MaxMessageSize bounds an encoded control message.
	MaxMessageSize = 512

	baseSize = modelwire.OpeningSize + 8 + 32
)

// codec is the part of MEP's wire format that the model protocols
// share (internal/modelwire), in this package's limits and errors.
var codec = modelwire.Codec{
	Version: CodecVersion, MaxMessageSize: MaxMessageSize,
	Known: func(t uint8) bool { return MsgType(t).known() },
	Errors: modelwire.Errors{
		Version: ErrCodecVersion, Type: ErrUnknownType, Truncated: ErrTruncated,
		Trailing: ErrTrailing, Oversized: ErrOversized, Field: ErrField,
	},
}

// Encode returns the wire form of m's control part (not To, Params or
// Hessian). It refuses a message Decode would refuse.
func Encode(m Message) ([]byte, error) { return AppendEncode(nil, m) }

// AppendEncode appends the wire form of m to b.
func AppendEncode(b []byte, m Message) ([]byte, error) {
	if err := checkFields(&m); err != nil {
		return b, err
	}
	w := wire.Writer{B: b}
	codec.PutOpening(&w, uint8(m.Type), m.From[:])
	w.U64(m.Version)
	w.Bytes(m.Fingerprint[:])
	if m.Type != MsgModel {
		return w.B, nil
	}
	h := &m.Model
	w.Bytes(h.Task[:])
	codec.PutModel(&w, h.Arch, h.NumParams)
	var flags byte
	if h.HasHessian {
		flags = 1
	}
	w.U8(flags)
	w.U64(h.DataSize)
	w.U32(h.Period)
	w.F64(h.DataConf)
	return w.B, nil
}

// Decode parses one control message. The result has no To, Params or
// Hessian; for MsgModel the transport then reads
// m.Model.PayloadBytes() of payload and fills them in.
func Decode(b []byte) (Message, error) {
	var m Message
	r, t := codec.Open(b, m.From[:])
	m.Type = MsgType(t)
	m.Version = r.U64()
	r.Fill(m.Fingerprint[:])
	if m.Type == MsgModel {
		h := &m.Model
		r.Fill(h.Task[:])
		h.Arch, h.NumParams = codec.ReadModel(&r)
		flags := r.U8()
		if r.OK() && flags > 1 {
			r.Fail(fmt.Errorf("%w: flags %#x", ErrField, flags))
		}
		h.HasHessian = flags == 1
		h.DataSize = r.U64()
		h.Period = r.U32()
		h.DataConf = r.F64()
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
	if m.Version == 0 {
		return fmt.Errorf("%w: model version 0", ErrField)
	}
	if m.Fingerprint == (Fingerprint{}) {
		return fmt.Errorf("%w: zero fingerprint", ErrField)
	}
	if m.Type != MsgModel {
		return nil
	}
	h := &m.Model
	if err := codec.CheckModel(h.Arch, h.NumParams); err != nil {
		return err
	}
	switch {
	case h.DataSize > MaxDataSize:
		return fmt.Errorf("%w: data size %d", ErrOversized, h.DataSize)
	case h.Period == 0 || h.Period > MaxPeriod:
		return fmt.Errorf("%w: period %d", ErrField, h.Period)
	case !(h.DataConf > 0 && h.DataConf <= 1):
		return fmt.Errorf("%w: data confidence %v", ErrField, h.DataConf)
	}
	return nil
}
