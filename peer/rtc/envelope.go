package rtc

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/peerlearn/peerlearn/internal/wire"
	"github.com/peerlearn/peerlearn/types/ident"
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
	Origin, Target ident.Peer
	Path, Back     []ident.Peer
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
	r := wire.NewReader(b)
	v := r.U8()
	if r.OK() && v != EnvelopeVersion {
		return Envelope{}, fmt.Errorf("%w: envelope version %d", ErrVersion, v)
	}
	var e Envelope
	e.Origin = readID(&r)
	e.Target = readID(&r)
	e.Path = readIDs(&r)
	e.Back = readIDs(&r)
	n := r.U32()
	if r.OK() && (n == 0 || n > MaxEnvelopeBody) {
		return Envelope{}, fmt.Errorf("%w: envelope body of %d bytes", ErrMalformed, n)
	}
	e.Body = append([]byte(nil), r.Next(int(n))...)
	if err := r.Err(); err != nil {
		return Envelope{}, readErr(err)
	}
	if r.Len() != 0 {
		return Envelope{}, fmt.Errorf("%w: %d trailing bytes after an envelope", ErrMalformed, r.Len())
	}
	if e.Origin == (ident.Peer{}) || e.Target == (ident.Peer{}) || e.Origin == e.Target {
		return Envelope{}, fmt.Errorf("%w: envelope from %v to %v", ErrMalformed, e.Origin, e.Target)
	}
	return e, nil
}

// readErr turns a wire.Reader's short read into ErrMalformed (errors
// the decoder set with Fail already wrap it).
func readErr(err error) error {
	if errors.Is(err, wire.ErrTruncated) {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return err
}

func readID(r *wire.Reader) (id ident.Peer) {
	r.Fill(id[:])
	return id
}

func readIDs(r *wire.Reader) []ident.Peer {
	n := int(r.U8())
	if r.OK() && n > MaxRouteHops {
		r.Fail(fmt.Errorf("%w: route of %d hops", ErrMalformed, n))
	}
	if !r.OK() || n == 0 {
		return nil
	}
	out := make([]ident.Peer, n)
	for i := range out {
		out[i] = readID(r)
	}
	return out
}
