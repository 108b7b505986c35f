package pushsum

import (
	"fmt"
	"math"

	"github.com/peerlearn/peerlearn/internal/wire"
)

// Wire format of a message, big-endian:
//
//	tag    u8   Tag
//	type   u8   MsgType (MsgShare)
//	from   [32] sender ID
//	leader [32] the instance's leader ID
//	round  u32  sender's round
//	s      f64  finite, 0 <= s <= MaxMass
//	w      f64  finite, 0 <= w <= 1
//
// Decode accepts exactly what Encode produces.
const (
	// Tag is the first byte of every push-sum frame. The model protocols'
	// codecs (mep, evalreq, gossip, plexus) start with their version byte
	// 1, so a receiver of rtc KindApp frames tells push-sum apart by it
	// (IsFrame).
	Tag = 0x50 // 'P'
	// MaxMass bounds a share's s: an honest share is at most the network
	// size, which MaxN bounds.
	MaxMass = MaxN
	// MessageSize is the size of an encoded message.
	MessageSize = 1 + 1 + 32 + 32 + 4 + 8 + 8
)

// IsFrame reports whether b is (or claims to be) a push-sum frame.
func IsFrame(b []byte) bool { return len(b) > 0 && b[0] == Tag }

// Encode returns the wire form of m (not To). It refuses a message
// Decode would refuse.
func Encode(m Message) ([]byte, error) {
	if err := checkFields(m); err != nil {
		return nil, err
	}
	w := wire.Writer{B: make([]byte, 0, MessageSize)}
	w.U8(Tag)
	w.U8(uint8(m.Type))
	w.Bytes(m.From[:])
	w.Bytes(m.Leader[:])
	w.U32(m.Round)
	w.F64(m.S)
	w.F64(m.W)
	return w.B, nil
}

// Decode parses one message.
func Decode(b []byte) (Message, error) {
	var m Message
	if len(b) > 0 && b[0] != Tag {
		return m, fmt.Errorf("%w: first byte %#x", ErrTag, b[0])
	}
	r := wire.NewReader(b)
	r.U8()
	m.Type = MsgType(r.U8())
	if r.OK() && !m.Type.known() {
		return Message{}, fmt.Errorf("%w: %v", ErrUnknownType, m.Type)
	}
	r.Fill(m.From[:])
	r.Fill(m.Leader[:])
	m.Round = r.U32()
	m.S = r.F64()
	m.W = r.F64()
	switch err := r.Done(); {
	case err == nil:
	case r.OK():
		return Message{}, fmt.Errorf("%w: %w", ErrTrailing, err)
	default:
		return Message{}, fmt.Errorf("%w: %w", ErrTruncated, err)
	}
	if err := checkFields(m); err != nil {
		return Message{}, err
	}
	return m, nil
}

// checkFields bounds a message's claims.
func checkFields(m Message) error {
	switch {
	case !m.Type.known():
		return fmt.Errorf("%w: %v", ErrUnknownType, m.Type)
	case !finiteIn(m.S, 0, MaxMass):
		return fmt.Errorf("%w: s = %v", ErrField, m.S)
	case !finiteIn(m.W, 0, 1):
		return fmt.Errorf("%w: w = %v", ErrField, m.W)
	}
	return nil
}

// finiteIn reports lo <= v <= hi (false for NaN).
func finiteIn(v, lo, hi float64) bool { return v >= lo && v <= hi && !math.IsInf(v, 0) }
