package signal

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"

	"github.com/peerlearn/peerlearn/types/ident"
)

// NonceSize is the length of a challenge nonce in bytes.
const NonceSize = 32

// helloDomain separates hello signatures from any other use of the key.
const helloDomain = "peerlearn/signal hello v1\x00"

// Identity is a peer's ed25519 key pair. Its ID is the SHA-256 of the
// public key. Safe for concurrent use (read-only after creation).
type Identity struct {
	priv ed25519.PrivateKey
}

// NewIdentity draws a fresh key pair from r (crypto/rand when nil).
func NewIdentity(r io.Reader) (Identity, error) {
	if r == nil {
		r = rand.Reader
	}
	_, priv, err := ed25519.GenerateKey(r)
	if err != nil {
		return Identity{}, fmt.Errorf("signal: generate key: %w", err)
	}
	return Identity{priv: priv}, nil
}

// IdentityFromSeed rebuilds a key pair from its 32-byte seed (Seed).
func IdentityFromSeed(seed []byte) (Identity, error) {
	if len(seed) != ed25519.SeedSize {
		return Identity{}, fmt.Errorf("%w: seed of %d bytes, want %d", ErrConfig, len(seed), ed25519.SeedSize)
	}
	return Identity{priv: ed25519.NewKeyFromSeed(seed)}, nil
}

// Valid reports whether the identity holds a key.
func (id Identity) Valid() bool { return len(id.priv) == ed25519.PrivateKeySize }

// Seed returns the private seed (keep it secret).
func (id Identity) Seed() []byte { return id.priv.Seed() }

// PublicKey returns the public key.
func (id Identity) PublicKey() ed25519.PublicKey {
	return id.priv.Public().(ed25519.PublicKey)
}

// ID returns the peer ID, SHA-256 of the public key.
func (id Identity) ID() ident.Peer { return ident.PeerFromPublicKey(id.PublicKey()) }

// Sign signs msg (for protocols above this one that need the key).
func (id Identity) Sign(msg []byte) []byte { return ed25519.Sign(id.priv, msg) }

// HelloMessage is the byte string a hello signs: a domain tag, the
// server's nonce, the task ID and the peer ID.
func HelloMessage(nonce []byte, t ident.Task, peer ident.Peer) []byte {
	b := make([]byte, 0, len(helloDomain)+len(nonce)+len(t)+len(peer))
	b = append(b, helloDomain...)
	b = append(b, nonce...)
	b = append(b, t[:]...)
	return append(b, peer[:]...)
}

// Hello returns the signed hello answering a challenge nonce for task t.
func (id Identity) Hello(nonce []byte, t ident.Task) *Hello {
	pid := id.ID()
	return &Hello{
		ID:        pid,
		PublicKey: id.PublicKey(),
		Task:      t,
		Signature: ed25519.Sign(id.priv, HelloMessage(nonce, t, pid)),
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
