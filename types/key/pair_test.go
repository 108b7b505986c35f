package key

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

// A pair rebuilt from its seed is the same key: same ID, and a signature
// that verifies under the public key; a seed of the wrong size is refused.
func TestPairFromSeed(t *testing.T) {
	p, err := New(bytes.NewReader(bytes.Repeat([]byte{7}, 64)))
	if err != nil || !p.Valid() {
		t.Fatalf("New: %v", err)
	}
	q, err := FromSeed(p.Seed())
	if err != nil || q.ID() != p.ID() || q.ID() != ident.PeerFromPublicKey(p.PublicKey()) {
		t.Fatalf("FromSeed: %v, IDs %v and %v", err, q.ID(), p.ID())
	}
	if !ed25519.Verify(p.PublicKey(), []byte("m"), q.Sign([]byte("m"))) {
		t.Fatal("a signature by the rebuilt pair does not verify")
	}
	if _, err := FromSeed(make([]byte, 31)); !errors.Is(err, ErrSeed) {
		t.Fatalf("31-byte seed: %v", err)
	}
	if (Pair{}).Valid() {
		t.Fatal("the zero pair is valid")
	}
}
