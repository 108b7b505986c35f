package ident

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// Peer names a peer: the SHA-256 of its ed25519 public key, so a peer
// cannot choose its identity without generating keys for it. The zero
// value names nobody.
type Peer [32]byte

// PeerFromPublicKey derives a peer's ID from its public key bytes.
func PeerFromPublicKey(pub []byte) Peer { return sha256.Sum256(pub) }

// IsZero reports whether p is the zero ID.
func (p Peer) IsZero() bool { return p == Peer{} }

// Seed is the number a peer's seeded choices start from: its ID's first
// 8 bytes, big-endian (IDs are hashes: the bits are uniform). The peer's
// shard when the spec assigns none, its training's and its method core's
// generators: every place that derives randomness from an ID uses this,
// so a simulator and the real peer draw alike.
func (p Peer) Seed() uint64 { return binary.BigEndian.Uint64(p[:8]) }

// String returns the first 8 hex digits, enough to tell peers apart in logs.
func (p Peer) String() string { return hex.EncodeToString(p[:4]) }

// Hex returns all 64 lowercase hex digits.
func (p Peer) Hex() string { return hex.EncodeToString(p[:]) }

// Less orders IDs bytewise; the overlay breaks ties between equidistant
// peers with it (FedLay's "smaller IP address", Definition 2).
func (p Peer) Less(other Peer) bool { return bytes.Compare(p[:], other[:]) < 0 }

// ComparePeers orders peers by their bytes, for slices.SortFunc.
func ComparePeers(a, b Peer) int { return bytes.Compare(a[:], b[:]) }

// ParsePeer reads the 64-hex-digit form written by Hex (either case).
func ParsePeer(s string) (Peer, error) {
	var p Peer
	if err := parseHex(p[:], s); err != nil {
		return Peer{}, fmt.Errorf("%w: %v", ErrPeer, err)
	}
	return p, nil
}

// MarshalText writes the hex form; the zero ID is written as "" (a JSON
// message field that names nobody).
func (p Peer) MarshalText() ([]byte, error) {
	if p.IsZero() {
		return []byte{}, nil
	}
	return []byte(p.Hex()), nil
}

// UnmarshalText reads the hex form; "" is the zero ID.
func (p *Peer) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*p = Peer{}
		return nil
	}
	v, err := ParsePeer(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

func parseHex(dst []byte, s string) error {
	if len(s) != 2*len(dst) {
		return fmt.Errorf("%d characters, want %d", len(s), 2*len(dst))
	}
	_, err := hex.Decode(dst, []byte(s))
	return err
}
