package rtc

import (
	"crypto/ed25519"
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"github.com/peerlearn/peerlearn/types/ident"
	"github.com/peerlearn/peerlearn/types/key"
)

// A Session is a signed SDP offer or answer. It travels through the
// signalling server (bootstrap) or routed through the overlay, and binds
// the DTLS fingerprint in the SDP to the sender's ed25519 key, so neither
// the server nor a relaying peer can stand in for either end.
//
//	v=1 | kind u8 | from[32] | to[32] | pubkey[32] | session u64 | unix ms i64 | len u32 | sdp | sig[64]
//
// The signature covers sessionDomain and every byte before it.
const (
	// SessionVersion is the session encoding this build speaks.
	SessionVersion = 1
	// MaxSDP bounds the SDP text (with every candidate; non-trickle).
	MaxSDP = 16 << 10

	sessionHeader = 1 + 1 + 32 + 32 + 32 + 8 + 8 + 4
)

const sessionDomain = "peerlearn/rtc session v1\x00"

// SessionKind says whether a Session is an offer or an answer.
type SessionKind uint8

const (
	// SessionOffer opens a connection.
	SessionOffer SessionKind = 1
	// SessionAnswer answers the offer with the same ID.
	SessionAnswer SessionKind = 2
)

// Session is a decoded, verified signed SDP.
type Session struct {
	Kind      SessionKind
	From, To  ident.Peer
	PublicKey ed25519.PublicKey // hashes to From
	// ID names the connection attempt; the answer repeats the offer's.
	ID uint64
	// UnixMilli is when it was signed (freshness).
	UnixMilli int64
	SDP       string
}

// EncodeSession signs s with id (From and PublicKey are taken from id).
func EncodeSession(s Session, id key.Pair) ([]byte, error) {
	if s.Kind != SessionOffer && s.Kind != SessionAnswer {
		return nil, fmt.Errorf("%w: session kind %d", ErrUnknownKind, s.Kind)
	}
	if len(s.SDP) == 0 || len(s.SDP) > MaxSDP {
		return nil, fmt.Errorf("%w: SDP of %d bytes", ErrTooLarge, len(s.SDP))
	}
	from := id.ID()
	b := make([]byte, 0, sessionHeader+len(s.SDP)+ed25519.SignatureSize)
	b = append(b, SessionVersion, byte(s.Kind))
	b = append(b, from[:]...)
	b = append(b, s.To[:]...)
	b = append(b, id.PublicKey()...)
	b = binary.BigEndian.AppendUint64(b, s.ID)
	b = binary.BigEndian.AppendUint64(b, uint64(s.UnixMilli))
	b = binary.BigEndian.AppendUint32(b, uint32(len(s.SDP)))
	b = append(b, s.SDP...)
	return append(b, id.Sign(append([]byte(sessionDomain), b...))...), nil
}

// DecodeSession parses b and verifies its signature and key. It does not
// check To or freshness (the Manager does).
func DecodeSession(b []byte) (Session, error) {
	if len(b) > sessionHeader+MaxSDP+ed25519.SignatureSize {
		return Session{}, fmt.Errorf("%w: session of %d bytes", ErrTooLarge, len(b))
	}
	if len(b) < sessionHeader+1+ed25519.SignatureSize {
		return Session{}, fmt.Errorf("%w: session of %d bytes", ErrMalformed, len(b))
	}
	if b[0] != SessionVersion {
		return Session{}, fmt.Errorf("%w: session version %d", ErrVersion, b[0])
	}
	s := Session{Kind: SessionKind(b[1])}
	if s.Kind != SessionOffer && s.Kind != SessionAnswer {
		return Session{}, fmt.Errorf("%w: session kind %d", ErrUnknownKind, b[1])
	}
	copy(s.From[:], b[2:34])
	copy(s.To[:], b[34:66])
	s.PublicKey = ed25519.PublicKey(append([]byte(nil), b[66:98]...))
	s.ID = binary.BigEndian.Uint64(b[98:106])
	s.UnixMilli = int64(binary.BigEndian.Uint64(b[106:114]))
	n := binary.BigEndian.Uint32(b[114:118])
	if n == 0 || uint64(n) != uint64(len(b)-sessionHeader-ed25519.SignatureSize) {
		return Session{}, fmt.Errorf("%w: SDP length %d in a session of %d bytes", ErrMalformed, n, len(b))
	}
	end := sessionHeader + int(n)
	sdp := b[sessionHeader:end]
	if !utf8.Valid(sdp) {
		return Session{}, fmt.Errorf("%w: SDP is not UTF-8", ErrMalformed)
	}
	s.SDP = string(sdp)
	if s.From == (ident.Peer{}) || s.To == (ident.Peer{}) || s.From == s.To {
		return Session{}, fmt.Errorf("%w: session from %v to %v", ErrMalformed, s.From, s.To)
	}
	if ident.PeerFromPublicKey(s.PublicKey) != s.From {
		return Session{}, fmt.Errorf("%w: session key does not hash to %v", ErrBadSignature, s.From)
	}
	if !ed25519.Verify(s.PublicKey, append([]byte(sessionDomain), b[:end]...), b[end:]) {
		return Session{}, fmt.Errorf("%w: session from %v", ErrBadSignature, s.From)
	}
	return s, nil
}
