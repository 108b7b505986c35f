// Package overlay is the FedLay overlay (NDMP) as a pure state machine:
// L virtual rings, greedy routing, join, leave, heartbeat and repair.
package overlay

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
)

// ID names a peer: the SHA-256 of its public key, so a peer cannot choose
// its identity, nor therefore its place on the rings.
type ID [32]byte

// IDFromPublicKey derives a peer's ID from its public key bytes.
func IDFromPublicKey(pub []byte) ID { return sha256.Sum256(pub) }

// String returns the first 8 hex digits, enough to tell peers apart in logs.
func (id ID) String() string { return hex.EncodeToString(id[:4]) }

// Less orders IDs bytewise; it breaks ties between equidistant peers (the
// paper's "smaller IP address", Definition 2).
func (id ID) Less(other ID) bool { return bytes.Compare(id[:], other[:]) < 0 }

// Coord is a position on a ring: the fraction Coord/2^64 of the way round,
// so circular arithmetic is exact unsigned wraparound.
type Coord uint64

// Float returns the coordinate as a fraction in [0, 1).
func (c Coord) Float() float64 { return float64(c) / (1 << 64) }

// Coordinate returns the coordinate of id in ring space i: the first 8
// bytes of SHA-256(id || i), i as 4 big-endian bytes.
func Coordinate(id ID, space int) Coord {
	var buf [36]byte
	copy(buf[:32], id[:])
	binary.BigEndian.PutUint32(buf[32:], uint32(space))
	sum := sha256.Sum256(buf[:])
	return Coord(binary.BigEndian.Uint64(sum[:8]))
}

// CircularDistance is CD(x, y) = min(|x-y|, 1-|x-y|) of Definition 2, in
// units of 2^-64 of the ring.
func CircularDistance(x, y Coord) uint64 {
	d := uint64(x - y)
	return min(d, -d)
}

// Closer reports whether peer a (at coordinate xa) is closer to target than
// peer b (at xb): smaller circular distance, ties broken to the smaller ID.
func Closer(a ID, xa Coord, b ID, xb Coord, target Coord) bool {
	da, db := CircularDistance(xa, target), CircularDistance(xb, target)
	if da != db {
		return da < db
	}
	return a.Less(b)
}
