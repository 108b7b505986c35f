package overlay

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Coord is a position on a ring: the fraction Coord/2^64 of the way round,
// so circular arithmetic is exact unsigned wraparound.
type Coord uint64

// Float returns the coordinate as a fraction in [0, 1).
func (c Coord) Float() float64 { return float64(c) / (1 << 64) }

// Coordinate returns the coordinate of id in ring space i: the first 8
// bytes of SHA-256(id || i), i as 4 big-endian bytes.
func Coordinate(id ident.Peer, space int) Coord {
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
func Closer(a ident.Peer, xa Coord, b ident.Peer, xb Coord, target Coord) bool {
	da, db := CircularDistance(xa, target), CircularDistance(xb, target)
	if da != db {
		return da < db
	}
	return a.Less(b)
}
