package mep

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
)

// FingerprintOf hashes a model: SHA-256 over the parameter count, the
// parameters (little-endian float32 bits), the Hessian length and the
// Hessian. Equal models have equal fingerprints on every platform.
func FingerprintOf(params, hessian []float32) Fingerprint {
	h := sha256.New()
	var buf [4096]byte
	put := func(v []float32) {
		binary.LittleEndian.PutUint64(buf[:8], uint64(len(v)))
		h.Write(buf[:8])
		for len(v) > 0 {
			n := min(len(v), len(buf)/4)
			for i, x := range v[:n] {
				binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(x))
			}
			h.Write(buf[:4*n])
			v = v[n:]
		}
	}
	put(params)
	put(hessian)
	var f Fingerprint
	h.Sum(f[:0])
	return f
}
