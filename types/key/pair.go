// Package key is a peer's key pair: an ed25519 key whose public half's
// SHA-256 is the peer's ID (types/ident). It sits in the vocabulary layer
// so that every room that signs or verifies as a peer (the signalling
// client, the transport's frames, the overlay's admissions) names one
// type, and none imports another room for its own key.
package key

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"

	"github.com/peerlearn/peerlearn/types/ident"
)

// ErrSeed: a seed that is not ed25519.SeedSize bytes.
var ErrSeed = errors.New("key: bad seed")

// Pair is a peer's ed25519 key pair. Safe for concurrent use (read-only
// after creation). The zero value holds no key (Valid is false).
type Pair struct {
	priv ed25519.PrivateKey
}

// New draws a fresh key pair from r (crypto/rand when nil).
func New(r io.Reader) (Pair, error) {
	if r == nil {
		r = rand.Reader
	}
	_, priv, err := ed25519.GenerateKey(r)
	if err != nil {
		return Pair{}, fmt.Errorf("key: generate: %w", err)
	}
	return Pair{priv: priv}, nil
}

// FromSeed rebuilds a key pair from its 32-byte seed (Seed).
func FromSeed(seed []byte) (Pair, error) {
	if len(seed) != ed25519.SeedSize {
		return Pair{}, fmt.Errorf("%w: %d bytes, want %d", ErrSeed, len(seed), ed25519.SeedSize)
	}
	return Pair{priv: ed25519.NewKeyFromSeed(seed)}, nil
}

// Valid reports whether the pair holds a key.
func (p Pair) Valid() bool { return len(p.priv) == ed25519.PrivateKeySize }

// Seed returns the private seed (keep it secret).
func (p Pair) Seed() []byte { return p.priv.Seed() }

// PublicKey returns the public key.
func (p Pair) PublicKey() ed25519.PublicKey { return p.priv.Public().(ed25519.PublicKey) }

// ID returns the peer ID, SHA-256 of the public key.
func (p Pair) ID() ident.Peer { return ident.PeerFromPublicKey(p.PublicKey()) }

// Sign signs msg. Each protocol prefixes its own domain tag, so a
// signature made for one never verifies for another.
func (p Pair) Sign(msg []byte) []byte { return ed25519.Sign(p.priv, msg) }
