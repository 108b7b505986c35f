package rtc

import (
	"crypto/ed25519"
	"encoding/binary"
	"fmt"

	"github.com/peerlearn/peerlearn/types/ident"
	"github.com/peerlearn/peerlearn/types/key"
)

// Frames are the data channel messages between two peers. Every frame
// starts with the version and a type byte:
//
//	control: v=1 | 1 | kind u8 | seq u64 | len u32 | payload | sig[64]
//	chunk:   v=1 | 2 | transfer u64 | offset u64 | data (1.. bytes)
//
// (integers big-endian). A control frame is signed with the sender's
// ed25519 key over frameDomain || from ID || to ID || everything before
// the signature, so it cannot be forged, nor replayed to another peer; its
// sequence number (one counter per sender, starting at the sender's
// start-up time in nanoseconds) lets the receiver refuse replays. Chunk
// frames carry model bytes: they are not signed one by one; the signed
// manifest's SHA-256 covers them, and the data channel itself is DTLS
// whose certificate fingerprint travelled in a signed SDP.
const (
	// FrameVersion is the frame format this build speaks.
	FrameVersion = 1
	// MaxFrameSize bounds every frame (the data channel message limit).
	MaxFrameSize = 256 << 10

	frameControl = 1
	frameChunk   = 2

	controlHeader   = 15
	controlOverhead = controlHeader + ed25519.SignatureSize
	chunkHeader     = 18
)

const frameDomain = "peerlearn/rtc frame v1\x00"

// Kind is what a control frame carries. The values are part of the wire
// format: append new kinds, never renumber or reuse one.
type Kind uint8

const (
	// KindOverlay carries an overlay message (overlay.Marshal).
	KindOverlay Kind = 1
	// KindApp carries an application message (the learning layer's MEP
	// control messages).
	KindApp Kind = 2
	// KindSignal carries a routed signalling Envelope.
	KindSignal Kind = 3
	// KindManifest opens a transfer (Manifest).
	KindManifest Kind = 4
	// KindResult closes a transfer from the receiving side (Result).
	KindResult Kind = 5

	numKinds = 6
)

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool { return k >= KindOverlay && k < numKinds }

func (k Kind) String() string {
	switch k {
	case KindOverlay:
		return "overlay"
	case KindApp:
		return "app"
	case KindSignal:
		return "signal"
	case KindManifest:
		return "manifest"
	case KindResult:
		return "result"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Frame is a parsed frame. Exactly one of Control and Chunk is set.
type Frame struct {
	Control *Control
	Chunk   *Chunk
}

// Control is a signed control frame.
type Control struct {
	Kind    Kind
	Seq     uint64
	Payload []byte // aliases the parsed bytes
	// signed is the part the signature covers (without the domain and
	// IDs), sig the signature; set by ParseFrame.
	signed, sig []byte
}

// Chunk is a slice of a transfer's bytes.
type Chunk struct {
	Transfer uint64
	Offset   uint64
	Data     []byte // aliases the parsed bytes
}

// AppendControl appends the signed control frame (kind, seq, payload) from
// id to the peer to.
func AppendControl(dst []byte, id key.Pair, to ident.Peer, kind Kind, seq uint64, payload []byte) ([]byte, error) {
	if !kind.Valid() {
		return nil, fmt.Errorf("%w: %v", ErrUnknownKind, kind)
	}
	if len(payload) > MaxFrameSize-controlOverhead {
		return nil, fmt.Errorf("%w: control payload of %d bytes", ErrTooLarge, len(payload))
	}
	start := len(dst)
	dst = append(dst, FrameVersion, frameControl, byte(kind))
	dst = binary.BigEndian.AppendUint64(dst, seq)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(payload)))
	dst = append(dst, payload...)
	from := id.ID()
	sig := id.Sign(signingInput(from, to, dst[start:]))
	return append(dst, sig...), nil
}

// AppendChunk appends a chunk frame.
func AppendChunk(dst []byte, transfer, offset uint64, data []byte) ([]byte, error) {
	if len(data) == 0 || len(data) > MaxFrameSize-chunkHeader {
		return nil, fmt.Errorf("%w: chunk of %d bytes", ErrTooLarge, len(data))
	}
	dst = append(dst, FrameVersion, frameChunk)
	dst = binary.BigEndian.AppendUint64(dst, transfer)
	dst = binary.BigEndian.AppendUint64(dst, offset)
	return append(dst, data...), nil
}

func signingInput(from, to ident.Peer, signed []byte) []byte {
	b := make([]byte, 0, len(frameDomain)+64+len(signed))
	b = append(b, frameDomain...)
	b = append(b, from[:]...)
	b = append(b, to[:]...)
	return append(b, signed...)
}

// ParseFrame parses b without verifying a signature (VerifyControl does).
// It refuses frames over MaxFrameSize (ErrTooLarge), of another version
// (ErrVersion), of an unknown type or kind (ErrUnknownKind) and anything
// short or inconsistent (ErrMalformed). The result aliases b.
func ParseFrame(b []byte) (Frame, error) {
	if len(b) > MaxFrameSize {
		return Frame{}, fmt.Errorf("%w: frame of %d bytes", ErrTooLarge, len(b))
	}
	if len(b) < 2 {
		return Frame{}, fmt.Errorf("%w: frame of %d bytes", ErrMalformed, len(b))
	}
	if b[0] != FrameVersion {
		return Frame{}, fmt.Errorf("%w: frame version %d", ErrVersion, b[0])
	}
	switch b[1] {
	case frameControl:
		if len(b) < controlOverhead {
			return Frame{}, fmt.Errorf("%w: control frame of %d bytes", ErrMalformed, len(b))
		}
		k := Kind(b[2])
		if !k.Valid() {
			return Frame{}, fmt.Errorf("%w: %v", ErrUnknownKind, k)
		}
		n := binary.BigEndian.Uint32(b[11:15])
		if uint64(n) != uint64(len(b)-controlOverhead) {
			return Frame{}, fmt.Errorf("%w: control payload length %d in a frame of %d bytes", ErrMalformed, n, len(b))
		}
		end := controlHeader + int(n)
		return Frame{Control: &Control{
			Kind: k, Seq: binary.BigEndian.Uint64(b[3:11]), Payload: b[controlHeader:end:end],
			signed: b[:end:end], sig: b[end:],
		}}, nil
	case frameChunk:
		if len(b) <= chunkHeader {
			return Frame{}, fmt.Errorf("%w: chunk frame of %d bytes", ErrMalformed, len(b))
		}
		return Frame{Chunk: &Chunk{
			Transfer: binary.BigEndian.Uint64(b[2:10]),
			Offset:   binary.BigEndian.Uint64(b[10:18]),
			Data:     b[chunkHeader:],
		}}, nil
	}
	return Frame{}, fmt.Errorf("%w: frame type %d", ErrUnknownKind, b[1])
}

// VerifyControl checks c's signature: made by pub (whose hash must be
// from) for the receiver to.
func VerifyControl(c *Control, pub ed25519.PublicKey, from, to ident.Peer) error {
	if len(pub) != ed25519.PublicKeySize || ident.PeerFromPublicKey(pub) != from {
		return fmt.Errorf("%w: key does not match peer %v", ErrBadSignature, from)
	}
	if len(c.sig) != ed25519.SignatureSize || !ed25519.Verify(pub, signingInput(from, to, c.signed), c.sig) {
		return fmt.Errorf("%w: control frame from %v", ErrBadSignature, from)
	}
	return nil
}
