package admission

import (
	"crypto/sha256"
	"encoding/binary"
	"math/bits"

	"github.com/peerlearn/peerlearn/types/ident"
)

// MaxPoWBits bounds a task's difficulty: 2^28 SHA-256 evaluations is
// minutes in a browser, more would lock volunteers out.
const MaxPoWBits = 28

const powDomain = "peerlearn/admission pow v1\x00"

// PoWHash is SHA-256(domain, task, public key, nonce as 8 big-endian
// bytes): the work is bound to the task and the key, so it can be done
// ahead of time but never reused for another key.
func PoWHash(t ident.Task, pub []byte, nonce uint64) [32]byte {
	var buf [len(powDomain) + 32 + 32 + 8]byte
	n := copy(buf[:], powDomain)
	n += copy(buf[n:], t[:])
	n += copy(buf[n:n+32], pub)
	binary.BigEndian.PutUint64(buf[n:], nonce)
	return sha256.Sum256(buf[:])
}

// LeadingZeros counts the leading zero bits of h.
func LeadingZeros(h [32]byte) int {
	z := 0
	for _, b := range h {
		if b != 0 {
			return z + bits.LeadingZeros8(b)
		}
		z += 8
	}
	return z
}

// CheckPoW reports whether nonce is a proof of work of at least want bits
// for key pub in task t.
func CheckPoW(t ident.Task, pub []byte, nonce uint64, want int) bool {
	if want <= 0 {
		return true
	}
	return LeadingZeros(PoWHash(t, pub, nonce)) >= want
}

// SolvePoW searches nonces from start upwards for a proof of at least want
// bits, trying at most tries of them; false if none was found. The
// expected cost is 2^want hashes.
func SolvePoW(t ident.Task, pub []byte, want int, start uint64, tries uint64) (uint64, bool) {
	for k := uint64(0); k < tries; k++ {
		if CheckPoW(t, pub, start+k, want) {
			return start + k, true
		}
	}
	return 0, false
}
