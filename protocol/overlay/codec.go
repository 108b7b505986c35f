package overlay

import (
	"fmt"

	"github.com/peerlearn/peerlearn/internal/wire"
	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

// Wire format, version 1 (all integers big-endian):
//
//	version u8 | type u8 | from [32] | to [32] | fields of the type
//
// The fields a type carries (fieldsOf) follow in this order:
//
//	origin [32] | space u8 | side u8 | hops u8 | best u64 | roles u32 | target u64 |
//	targetID [32] | peers: count u8, count*[32] | payload: len u32, bytes
//
// then, only if the message has peer records (records.go), a trailing
// section: count u8 (1..MaxRecords) | count * admission.TokenSize bytes.
// Without records the encoding is exactly the one before records existed.
//
// Every field is fixed-width, so an encoding is canonical: Unmarshal
// accepts exactly the bytes Marshal produces.
const (
	// CodecVersion is the version byte this build writes and reads.
	CodecVersion = 1
	// MaxMessageSize bounds an encoded message (a 64 KiB data-channel
	// chunk).
	MaxMessageSize = 64 << 10
	// MaxPayload bounds a Route payload, leaving room for the header.
	MaxPayload = MaxMessageSize - 1024
	// MaxSpaces bounds Config.Spaces: Roles has one bit per slot.
	MaxSpaces = 16

	headerSize = 2 + 2*len(ident.Peer{})
)

// Validate checks m against its type: known type, no field the type does
// not carry, space, side, peer count and payload in range.
func (m *Message) Validate() error {
	if m.Type == MsgInvalid || m.Type >= numMsgTypes {
		return fmt.Errorf("%w: %d", ErrUnknownType, uint8(m.Type))
	}
	if m.From == (ident.Peer{}) || m.To == (ident.Peer{}) {
		return fmt.Errorf("%w: %v with zero From or To", ErrMalformed, m.Type)
	}
	f := fieldsOf[m.Type]
	unexpected := func(has bool, flag fieldSet, name string) error {
		if has && f&flag == 0 {
			return fmt.Errorf("%w: %v carries no %s", ErrMalformed, m.Type, name)
		}
		return nil
	}
	for _, e := range []error{
		unexpected(m.Origin != ident.Peer{}, fOrigin, "Origin"),
		unexpected(m.Space != 0, fSpace, "Space"),
		unexpected(m.Side != 0, fSide, "Side"),
		unexpected(m.Hops != 0, fHops, "Hops"),
		unexpected(m.Best != 0, fBest, "Best"),
		unexpected(m.Roles != 0, fRoles, "Roles"),
		unexpected(m.Target != 0, fTarget, "Target"),
		unexpected(m.TargetID != ident.Peer{}, fTargetID, "TargetID"),
		unexpected(len(m.Peers) != 0, fPeers, "Peers"),
		unexpected(len(m.Payload) != 0, fPayload, "Payload"),
	} {
		if e != nil {
			return e
		}
	}
	if m.Space >= MaxSpaces {
		return fmt.Errorf("%w: space %d", ErrMalformed, m.Space)
	}
	if m.Side > Succ {
		return fmt.Errorf("%w: side %d", ErrMalformed, m.Side)
	}
	if f&fOrigin != 0 && m.Origin == (ident.Peer{}) {
		return fmt.Errorf("%w: %v with zero Origin", ErrMalformed, m.Type)
	}
	lo, hi := peerCount(m.Type)
	if n := len(m.Peers); n < lo || n > hi || (m.Type == MsgLeave && n%2 != 0) {
		return fmt.Errorf("%w: %v with %d peers", ErrMalformed, m.Type, n)
	}
	if m.Type != MsgLeave { // a Leave names its empty slots with zero IDs
		for _, p := range m.Peers {
			if p == (ident.Peer{}) {
				return fmt.Errorf("%w: %v with a zero peer", ErrMalformed, m.Type)
			}
		}
	}
	if len(m.Payload) > MaxPayload {
		return fmt.Errorf("%w: payload of %d bytes, limit %d", ErrTooLarge, len(m.Payload), MaxPayload)
	}
	if len(m.Records) > MaxRecords || (m.Type == MsgRoute && len(m.Records) > 0) {
		return fmt.Errorf("%w: %v with %d records", ErrMalformed, m.Type, len(m.Records))
	}
	return nil
}

// EncodedSize returns the length of m's encoding (m assumed valid).
func (m *Message) EncodedSize() int {
	n := headerSize
	f := fieldsOf[m.Type]
	for _, w := range [...]struct {
		flag fieldSet
		size int
	}{{fOrigin, 32}, {fSpace, 1}, {fSide, 1}, {fHops, 1}, {fBest, 8}, {fRoles, 4}, {fTarget, 8}, {fTargetID, 32}} {
		if f&w.flag != 0 {
			n += w.size
		}
	}
	if f&fPeers != 0 {
		n += 1 + 32*len(m.Peers)
	}
	if f&fPayload != 0 {
		n += 4 + len(m.Payload)
	}
	if len(m.Records) > 0 {
		n += 1 + admission.TokenSize*len(m.Records)
	}
	return n
}

// Marshal encodes m after validating it.
func Marshal(m Message) ([]byte, error) { return AppendMarshal(nil, m) }

// AppendMarshal appends m's encoding to dst.
func AppendMarshal(dst []byte, m Message) ([]byte, error) {
	if err := m.Validate(); err != nil {
		return dst, err
	}
	f := fieldsOf[m.Type]
	w := wire.Writer{B: dst}
	w.U8(CodecVersion)
	w.U8(byte(m.Type))
	w.Bytes(m.From[:])
	w.Bytes(m.To[:])
	if f&fOrigin != 0 {
		w.Bytes(m.Origin[:])
	}
	if f&fSpace != 0 {
		w.U8(m.Space)
	}
	if f&fSide != 0 {
		w.U8(byte(m.Side))
	}
	if f&fHops != 0 {
		w.U8(m.Hops)
	}
	if f&fBest != 0 {
		w.U64(m.Best)
	}
	if f&fRoles != 0 {
		w.U32(m.Roles)
	}
	if f&fTarget != 0 {
		w.U64(uint64(m.Target))
	}
	if f&fTargetID != 0 {
		w.Bytes(m.TargetID[:])
	}
	if f&fPeers != 0 {
		w.U8(byte(len(m.Peers)))
		for _, p := range m.Peers {
			w.Bytes(p[:])
		}
	}
	if f&fPayload != 0 {
		w.U32(uint32(len(m.Payload)))
		w.Bytes(m.Payload)
	}
	if len(m.Records) > 0 {
		w.U8(byte(len(m.Records)))
		for k := range m.Records {
			w.Bytes(m.Records[k].Marshal())
		}
	}
	return w.B, nil
}

// readID reads a fixed-size ID.
func readID(r *wire.Reader) (id ident.Peer) {
	r.Fill(id[:])
	return id
}

// Unmarshal decodes one message, which must fill b exactly. It rejects
// oversized input, an unknown version or type, truncation, trailing
// bytes and field values out of range. The result shares no memory with
// b.
func Unmarshal(b []byte) (Message, error) {
	var m Message
	if len(b) > MaxMessageSize {
		return m, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(b), MaxMessageSize)
	}
	if len(b) < 2 {
		return m, fmt.Errorf("%w: %d bytes", ErrMalformed, len(b))
	}
	if b[0] != CodecVersion {
		return m, fmt.Errorf("%w: %d", ErrVersion, b[0])
	}
	m.Type = MsgType(b[1])
	if m.Type == MsgInvalid || m.Type >= numMsgTypes {
		return m, fmt.Errorf("%w: %d", ErrUnknownType, b[1])
	}
	r := wire.NewReader(b[2:])
	m.From, m.To = readID(&r), readID(&r)
	f := fieldsOf[m.Type]
	if f&fOrigin != 0 {
		m.Origin = readID(&r)
	}
	if f&fSpace != 0 {
		m.Space = r.U8()
	}
	if f&fSide != 0 {
		m.Side = Side(r.U8())
	}
	if f&fHops != 0 {
		m.Hops = r.U8()
	}
	if f&fBest != 0 {
		m.Best = r.U64()
	}
	if f&fRoles != 0 {
		m.Roles = r.U32()
	}
	if f&fTarget != 0 {
		m.Target = Coord(r.U64())
	}
	if f&fTargetID != 0 {
		m.TargetID = readID(&r)
	}
	if f&fPeers != 0 {
		n := int(r.U8())
		if r.OK() && n > 0 {
			if _, hi := peerCount(m.Type); n > hi {
				return Message{}, fmt.Errorf("%w: %v with %d peers", ErrMalformed, m.Type, n)
			}
			m.Peers = make([]ident.Peer, n)
			for i := range m.Peers {
				m.Peers[i] = readID(&r)
			}
		}
	}
	if f&fPayload != 0 {
		n := r.U32()
		if r.OK() && n > MaxPayload {
			return Message{}, fmt.Errorf("%w: payload of %d bytes", ErrTooLarge, n)
		}
		if p := r.Next(int(n)); p != nil && n > 0 {
			m.Payload = append([]byte(nil), p...)
		}
	}
	if r.OK() && r.Len() > 0 && m.Type != MsgRoute {
		rest := r.Len()
		n := int(r.U8())
		if n < 1 || n > MaxRecords || rest != 1+n*admission.TokenSize {
			return Message{}, fmt.Errorf("%w: %d bytes (not a records section)", ErrTrailingData, rest)
		}
		m.Records = make([]admission.Token, n)
		for k := range m.Records {
			b := r.Next(admission.TokenSize)
			if b == nil {
				break
			}
			tok, err := admission.Unmarshal(b)
			if err != nil {
				return Message{}, fmt.Errorf("%w: record %d: %w", ErrMalformed, k, err)
			}
			m.Records[k] = tok
		}
	}
	if !r.OK() {
		return Message{}, fmt.Errorf("%w: truncated", ErrMalformed)
	}
	if r.Len() != 0 {
		return Message{}, fmt.Errorf("%w: %d bytes", ErrTrailingData, r.Len())
	}
	if err := m.Validate(); err != nil {
		return Message{}, err
	}
	return m, nil
}
