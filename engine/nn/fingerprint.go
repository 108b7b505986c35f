package nn

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
)

// Digest is a SHA-256 fingerprint of a flat parameter slice.
type Digest [32]byte

// String returns the first 8 bytes in hex, enough to tell models apart in logs.
func (d Digest) String() string { return hex.EncodeToString(d[:8]) }

// Fingerprint hashes params as little-endian float32 bytes (the encoding's
// payload), so equal parameters give equal digests on every platform and
// backend. FedLay uses it to skip sending a model a neighbour already has.
func Fingerprint(params []float32) Digest {
	h := sha256.New()
	var buf [4096]byte
	for len(params) > 0 {
		k := min(len(params), len(buf)/4)
		for i, v := range params[:k] {
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
		}
		h.Write(buf[:4*k])
		params = params[k:]
	}
	var d Digest
	h.Sum(d[:0])
	return d
}
