package admission

import (
	"crypto/ed25519"
	"encoding/binary"
	"fmt"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Token wire format, version 1 (integers big-endian), TokenSize bytes:
//
//	version u8 | task [32] | public key [32] | epoch u32 | not after i64 |
//	salt [32] | pow nonce u64 | pow bits u8 | signature [64]
//
// The signature is the server's ed25519 over tokenDomain followed by every
// byte before it. Every field is fixed-width, so the encoding is canonical.
const (
	TokenVersion = 1
	TokenSize    = 1 + 32 + 32 + 4 + 8 + 32 + 8 + 1 + ed25519.SignatureSize
	bodySize     = TokenSize - ed25519.SignatureSize
	tokenDomain  = "peerlearn/admission token v1\x00"
)

// Token is a server's admission of one public key to one task for an
// epoch; it doubles as the key's peer record (package doc).
type Token struct {
	// Task is the task the key is admitted to.
	Task ident.Task
	// PublicKey is the peer's ed25519 public key; its SHA-256 is the ID.
	PublicKey [ed25519.PublicKeySize]byte
	// Epoch is the admission epoch (unix time / the issuer's epoch length).
	Epoch uint32
	// NotAfter is the unix second after which the token is expired.
	NotAfter int64
	// Salt is the server's randomness for this key's placement.
	Salt [32]byte
	// PoW is the key's proof-of-work nonce and PoWBits the difficulty it
	// was admitted under (the verifier checks the nonce against its own
	// required difficulty, not against this claim).
	PoW     uint64
	PoWBits uint8
	// Sig is the server's signature.
	Sig [ed25519.SignatureSize]byte
}

// Peer returns the ID the token admits: the SHA-256 of its public key.
func (t *Token) Peer() ident.Peer { return ident.PeerFromPublicKey(t.PublicKey[:]) }

// Coordinate returns the admitted peer's coordinate in ring space i.
func (t *Token) Coordinate(space int) uint64 { return Place(t.Peer(), t.Salt, space) }

// body appends the signed part of the encoding.
func (t *Token) body(dst []byte) []byte {
	dst = append(dst, TokenVersion)
	dst = append(dst, t.Task[:]...)
	dst = append(dst, t.PublicKey[:]...)
	dst = binary.BigEndian.AppendUint32(dst, t.Epoch)
	dst = binary.BigEndian.AppendUint64(dst, uint64(t.NotAfter))
	dst = append(dst, t.Salt[:]...)
	dst = binary.BigEndian.AppendUint64(dst, t.PoW)
	return append(dst, t.PoWBits)
}

func (t *Token) signingInput() []byte {
	return t.body(append(make([]byte, 0, len(tokenDomain)+bodySize), tokenDomain...))
}

// Marshal returns the TokenSize-byte encoding.
func (t *Token) Marshal() []byte {
	return append(t.body(make([]byte, 0, TokenSize)), t.Sig[:]...)
}

// Unmarshal decodes a token encoding (exactly TokenSize bytes). It checks
// the format only: Verify checks what the token says.
func Unmarshal(b []byte) (Token, error) {
	var t Token
	if len(b) != TokenSize {
		return t, fmt.Errorf("%w: %d bytes, want %d", ErrMalformed, len(b), TokenSize)
	}
	if b[0] != TokenVersion {
		return t, fmt.Errorf("%w: version %d", ErrMalformed, b[0])
	}
	r := b[1:]
	r = r[copy(t.Task[:], r):]
	r = r[copy(t.PublicKey[:], r):]
	t.Epoch, r = binary.BigEndian.Uint32(r), r[4:]
	t.NotAfter, r = int64(binary.BigEndian.Uint64(r)), r[8:]
	r = r[copy(t.Salt[:], r):]
	t.PoW, r = binary.BigEndian.Uint64(r), r[8:]
	t.PoWBits, r = r[0], r[1:]
	copy(t.Sig[:], r)
	return t, nil
}

// Policy is what a verifier requires of a token. The zero Now and
// MinEpoch skip the respective check (a pure protocol core that has no
// wall clock checks epochs; the peer runtime and the server check time).
type Policy struct {
	// ServerKey is the admission server's public key (task config).
	ServerKey ed25519.PublicKey
	// Task is the task the verifier runs.
	Task ident.Task
	// PoWBits is the task's difficulty.
	PoWBits int
	// Now is the verifier's unix time in seconds; 0: no expiry check.
	Now int64
	// MinEpoch is the oldest epoch accepted; 0: any.
	MinEpoch uint32
}

// Verify checks t against p: the server's signature, the task, the
// proof of work against p's difficulty, and the expiry. Errors wrap one
// of this package's sentinels.
func Verify(t *Token, p Policy) error {
	if len(p.ServerKey) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: server key of %d bytes", ErrConfig, len(p.ServerKey))
	}
	if !ed25519.Verify(p.ServerKey, t.signingInput(), t.Sig[:]) {
		return fmt.Errorf("%w: for peer %v", ErrSignature, t.Peer())
	}
	if t.Task != p.Task {
		return fmt.Errorf("%w: %v, want %v", ErrTask, t.Task, p.Task)
	}
	if !CheckPoW(t.Task, t.PublicKey[:], t.PoW, p.PoWBits) {
		return fmt.Errorf("%w: peer %v, want %d bits", ErrPoW, t.Peer(), p.PoWBits)
	}
	if p.Now != 0 && p.Now > t.NotAfter {
		return fmt.Errorf("%w: peer %v, %d s ago", ErrExpired, t.Peer(), p.Now-t.NotAfter)
	}
	if t.Epoch < p.MinEpoch {
		return fmt.Errorf("%w: peer %v, epoch %d < %d", ErrExpired, t.Peer(), t.Epoch, p.MinEpoch)
	}
	return nil
}

// VerifyFor is Verify plus the check that t admits id (a token presented
// for another key is refused).
func VerifyFor(t *Token, id ident.Peer, p Policy) error {
	if t.Peer() != id {
		return fmt.Errorf("%w: token admits %v, presented for %v", ErrPeer, t.Peer(), id)
	}
	return Verify(t, p)
}
