package signal

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// PeerID names a peer: the SHA-256 of its ed25519 public key (the same
// value as overlay.IDFromPublicKey; convert with overlay.ID(id)). The zero
// ID names nobody.
type PeerID [32]byte

// PeerIDFromPublicKey derives a peer's ID from its public key.
func PeerIDFromPublicKey(pub []byte) PeerID { return sha256.Sum256(pub) }

// IsZero reports whether id is the zero ID.
func (id PeerID) IsZero() bool { return id == PeerID{} }

// String returns the first 8 hex digits, enough for logs.
func (id PeerID) String() string { return hex.EncodeToString(id[:4]) }

// Hex returns all 64 lowercase hex digits.
func (id PeerID) Hex() string { return hex.EncodeToString(id[:]) }

// ParsePeerID reads the 64-hex-digit form written by Hex.
func ParsePeerID(s string) (PeerID, error) {
	var id PeerID
	if len(s) != 2*len(id) {
		return PeerID{}, fmt.Errorf("%w: %d characters, want %d", ErrPeerID, len(s), 2*len(id))
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return PeerID{}, fmt.Errorf("%w: %v", ErrPeerID, err)
	}
	return id, nil
}

// MarshalText writes the hex form; the zero ID is written as "".
func (id PeerID) MarshalText() ([]byte, error) {
	if id.IsZero() {
		return []byte{}, nil
	}
	return []byte(id.Hex()), nil
}

// UnmarshalText reads the hex form; "" is the zero ID.
func (id *PeerID) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*id = PeerID{}
		return nil
	}
	v, err := ParsePeerID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}
