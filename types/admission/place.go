package admission

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/peerlearn/peerlearn/types/ident"
)

const placeDomain = "peerlearn/admission place v1\x00"

// Place returns the ring coordinate of peer id in ring space i under the
// admitted placement: the first 8 bytes of SHA-256(domain, id, salt, i),
// as a fraction of 2^64 of the ring. The salt comes from the server's
// admission, so nobody can compute it for a key before it is admitted.
func Place(id ident.Peer, salt [32]byte, space int) uint64 {
	var buf [len(placeDomain) + 32 + 32 + 4]byte
	n := copy(buf[:], placeDomain)
	n += copy(buf[n:], id[:])
	n += copy(buf[n:], salt[:])
	binary.BigEndian.PutUint32(buf[n:], uint32(space))
	sum := sha256.Sum256(buf[:])
	return binary.BigEndian.Uint64(sum[:8])
}
