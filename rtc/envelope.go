package rtc

import (
	"encoding/binary"
	"fmt"

	"github.com/peerlearn/peerlearn/overlay"
)

// An Envelope carries a signed Session between peers that have no
// connection yet, hop by hop over open data channels (in KindSignal
// control frames, each hop signed by its sender):
//
//	v=1 | origin[32] | target[32] | npath u8 | path[npath][32] | nback u8 | back[nback][32] | len u32 | body
//
// Path lists the peers that sent it so far, origin first; Back, when not
// empty, is a source route (next hop first) that an answer follows back
// along its offer's path.
const (
	// EnvelopeVersion is the envelope encoding this build speaks.
	EnvelopeVersion = 1
	// MaxRouteHops bounds Path and Back.
	MaxRouteHops = 32
	// MaxEnvelopeBody bounds the body (an encoded Session).
	MaxEnvelopeBody = sessionHeader + MaxSDP + 64
)

// Envelope is routed signalling.
type Envelope struct {
	Origin, Target overlay.ID
	Path, Back     []overlay.ID
	Body           []byte
}

// MarshalEnvelope encodes e.
func MarshalEnvelope(e Envelope) ([]byte, error) {
	if len(e.Path) > MaxRouteHops || len(e.Back) > MaxRouteHops {
		return nil, fmt.Errorf("%w: route of %d+%d hops", ErrTooLarge, len(e.Path), len(e.Back))
	}
	if len(e.Body) == 0 || len(e.Body) > MaxEnvelopeBody {
		return nil, fmt.Errorf("%w: envelope body of %d bytes", ErrTooLarge, len(e.Body))
	}
	b := make([]byte, 0, 1+64+2+32*(len(e.Path)+len(e.Back))+4+len(e.Body))
	b = append(b, EnvelopeVersion)
	b = append(b, e.Origin[:]...)
	b = append(b, e.Target[:]...)
	b = append(b, byte(len(e.Path)))
	for _, id := range e.Path {
		b = append(b, id[:]...)
	}
	b = append(b, byte(len(e.Back)))
	for _, id := range e.Back {
		b = append(b, id[:]...)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(e.Body)))
	return append(b, e.Body...), nil
}

// UnmarshalEnvelope decodes b (copying what it keeps).
func UnmarshalEnvelope(b []byte) (Envelope, error) {
	r := reader{b: b}
	v := r.u8()
	if r.err == nil && v != EnvelopeVersion {
		return Envelope{}, fmt.Errorf("%w: envelope version %d", ErrVersion, v)
	}
	var e Envelope
	e.Origin = r.id()
	e.Target = r.id()
	e.Path = r.ids()
	e.Back = r.ids()
	n := r.u32()
	if r.err == nil && (n == 0 || n > MaxEnvelopeBody) {
		return Envelope{}, fmt.Errorf("%w: envelope body of %d bytes", ErrMalformed, n)
	}
	e.Body = append([]byte(nil), r.next(int(n))...)
	if r.err != nil {
		return Envelope{}, r.err
	}
	if len(r.b) != 0 {
		return Envelope{}, fmt.Errorf("%w: %d trailing bytes after an envelope", ErrMalformed, len(r.b))
	}
	if e.Origin == (overlay.ID{}) || e.Target == (overlay.ID{}) || e.Origin == e.Target {
		return Envelope{}, fmt.Errorf("%w: envelope from %v to %v", ErrMalformed, e.Origin, e.Target)
	}
	return e, nil
}

// reader reads big-endian fields; the first short read sets err
// (ErrMalformed) and every later read returns zeros.
type reader struct {
	b   []byte
	err error
}

func (r *reader) next(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = fmt.Errorf("%w: want %d more bytes, have %d", ErrMalformed, n, len(r.b))
		r.b = nil
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u8() uint8 {
	if v := r.next(1); v != nil {
		return v[0]
	}
	return 0
}

func (r *reader) u16() uint16 {
	if v := r.next(2); v != nil {
		return binary.BigEndian.Uint16(v)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if v := r.next(4); v != nil {
		return binary.BigEndian.Uint32(v)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if v := r.next(8); v != nil {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}

func (r *reader) id() (id overlay.ID) {
	copy(id[:], r.next(32))
	return id
}

func (r *reader) ids() []overlay.ID {
	n := int(r.u8())
	if r.err == nil && n > MaxRouteHops {
		r.err = fmt.Errorf("%w: route of %d hops", ErrMalformed, n)
	}
	if r.err != nil || n == 0 {
		return nil
	}
	out := make([]overlay.ID, n)
	for i := range out {
		out[i] = r.id()
	}
	return out
}
