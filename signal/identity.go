package signal

import (
	"crypto/ed25519"
	"fmt"
	"io"

	"github.com/peerlearn/peerlearn/types/ident"
	"github.com/peerlearn/peerlearn/types/key"
)

// NonceSize is the length of a challenge nonce in bytes.
const NonceSize = 32

// helloDomain separates hello signatures from any other use of the key.
const helloDomain = "peerlearn/signal hello v1\x00"

// Identity is a peer's key pair (types/key): its ID is the SHA-256 of
// the public key.
type Identity = key.Pair

// NewIdentity draws a fresh key pair from r (crypto/rand when nil).
func NewIdentity(r io.Reader) (Identity, error) { return key.New(r) }

// IdentityFromSeed rebuilds a key pair from its 32-byte seed (Seed).
func IdentityFromSeed(seed []byte) (Identity, error) {
	id, err := key.FromSeed(seed)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return id, nil
}

// HelloMessage is the byte string a hello signs: a domain tag, the
// server's nonce, the task ID and the peer ID.
func HelloMessage(nonce []byte, t ident.Task, peer ident.Peer) []byte {
	b := make([]byte, 0, len(helloDomain)+len(nonce)+len(t)+len(peer))
	b = append(b, helloDomain...)
	b = append(b, nonce...)
	b = append(b, t[:]...)
	return append(b, peer[:]...)
}

// SignHello returns id's signed hello answering a challenge nonce for
// task t.
func SignHello(id Identity, nonce []byte, t ident.Task) *Hello {
	pid := id.ID()
	return &Hello{
		ID:        pid,
		PublicKey: id.PublicKey(),
		Task:      t,
		Signature: id.Sign(HelloMessage(nonce, t, pid)),
	}
}

// VerifyHello checks that h's public key hashes to its ID and that its
// signature covers nonce; errors wrap ErrBadSignature.
func VerifyHello(h *Hello, nonce []byte) error {
	if len(h.PublicKey) != ed25519.PublicKeySize || len(h.Signature) != ed25519.SignatureSize {
		return fmt.Errorf("%w: key of %d bytes, signature of %d", ErrBadSignature, len(h.PublicKey), len(h.Signature))
	}
	if ident.PeerFromPublicKey(h.PublicKey) != h.ID {
		return fmt.Errorf("%w: ID %v is not the hash of the public key", ErrBadSignature, h.ID)
	}
	if !ed25519.Verify(h.PublicKey, HelloMessage(nonce, h.Task, h.ID), h.Signature) {
		return fmt.Errorf("%w: signature does not verify for peer %v", ErrBadSignature, h.ID)
	}
	return nil
}
