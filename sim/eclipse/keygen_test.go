package eclipse

import (
	"slices"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
)

// TestKeyGen: each key's coordinates are its old-placement ones,
// H(SHA-256(pub), i), keys differ, and the same seed gives the same keys.
func TestKeyGen(t *testing.T) {
	const spaces = 3
	a, b := NewKeyGen([32]byte{9}, spaces), NewKeyGen([32]byte{9}, spaces)
	var prev []byte
	for range 20 {
		pub, coords := a.Next()
		if len(coords) != spaces {
			t.Fatalf("%d coordinates, want %d", len(coords), spaces)
		}
		id := ident.PeerFromPublicKey(pub)
		for sp, c := range coords {
			if want := uint64(overlay.Coordinate(id, sp)); c != want {
				t.Fatalf("space %d: coordinate %x, want %x", sp, c, want)
			}
		}
		if slices.Equal(prev, pub) {
			t.Fatalf("the same key twice: %x", pub)
		}
		prev = slices.Clone(pub)
		if pub2, _ := b.Next(); !slices.Equal(pub, pub2) {
			t.Fatalf("same seed, different keys: %x vs %x", pub, pub2)
		}
	}
}

// TestKeyRate: it generates keys (whole batches) for at least d.
func TestKeyRate(t *testing.T) {
	keys, el := KeyRate(5, 20*time.Millisecond)
	if keys < 64 || keys%64 != 0 || el < 20*time.Millisecond {
		t.Fatalf("%d keys in %v", keys, el)
	}
	t.Logf("%d keys in %v: %.0f keys/s", keys, el, float64(keys)/el.Seconds())
}
