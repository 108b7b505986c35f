package eclipse

import (
	"crypto/ed25519"
	"math/rand/v2"
	"time"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
)

// KeyGen is an attacker's per-key work under the old placement: a real
// ed25519 key from a seeded stream, its peer ID (SHA-256 of the public
// key) and its L ring coordinates H(id, i). The grinder in Run and the
// rate measurements (KeyRate, natively and in Chromium from wasm/bench)
// all run this code, so a rate measured anywhere prices Run's key counts.
type KeyGen struct {
	stream keyStream
	coords []uint64
}

// NewKeyGen returns a generator of keys with spaces coordinates each,
// drawn from the ChaCha8 stream seeded with seed.
func NewKeyGen(seed [32]byte, spaces int) *KeyGen {
	return &KeyGen{stream: keyStream{rand.NewChaCha8(seed)}, coords: make([]uint64, spaces)}
}

// Next generates one key and returns it with its coordinates (the slice
// is reused by the next call).
func (g *KeyGen) Next() (ed25519.PublicKey, []uint64) {
	pub := g.stream.next()
	id := ident.PeerFromPublicKey(pub)
	for sp := range g.coords {
		g.coords[sp] = uint64(overlay.Coordinate(id, sp))
	}
	return pub, g.coords
}

// keyStream generates real ed25519 keys from a seeded stream.
type keyStream struct{ r *rand.ChaCha8 }

func (k keyStream) Read(p []byte) (int, error) { return k.r.Read(p) }

func (k keyStream) next() ed25519.PublicKey {
	pub, _, err := ed25519.GenerateKey(k)
	if err != nil {
		panic(err) // a ChaCha8 stream does not fail
	}
	return pub
}

// KeyRate generates keys with spaces coordinates for about d on the
// calling goroutine (one core) and returns the keys generated and the
// time they took; keys/elapsed is the grinding rate. The keys are checked
// in batches of 64 between clock reads.
func KeyRate(spaces int, d time.Duration) (keys int, elapsed time.Duration) {
	g := NewKeyGen([32]byte{'r', 'a', 't', 'e'}, spaces)
	var sink uint64
	start := time.Now()
	for elapsed < d {
		for range 64 {
			_, c := g.Next()
			sink ^= c[0]
		}
		keys += 64
		elapsed = time.Since(start)
	}
	if sink == 1 { // keeps the coordinates live; a 2^-64 chance
		keys++
	}
	return keys, elapsed
}
