package signal

import (
	"bytes"
	"errors"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

func TestHelloSignature(t *testing.T) {
	_, tid := testSpec(t)
	a, b := testIdentity(t, 1), testIdentity(t, 2)
	nonce := bytes.Repeat([]byte{7}, NonceSize)
	h := SignHello(a, nonce, tid)
	if err := VerifyHello(h, nonce); err != nil {
		t.Fatal(err)
	}
	other := bytes.Repeat([]byte{8}, NonceSize)
	bad := map[string]func() (*Hello, []byte){
		"other nonce": func() (*Hello, []byte) { return SignHello(a, nonce, tid), other },
		"other task": func() (*Hello, []byte) {
			h := SignHello(a, nonce, tid)
			h.Task = ident.Task{1}
			return h, nonce
		},
		"key of another peer": func() (*Hello, []byte) {
			h := SignHello(a, nonce, tid)
			h.PublicKey = b.PublicKey()
			return h, nonce
		},
		"ID and key of another peer": func() (*Hello, []byte) {
			h := SignHello(a, nonce, tid)
			h.PublicKey, h.ID = b.PublicKey(), b.ID()
			return h, nonce
		},
		"flipped signature": func() (*Hello, []byte) {
			h := SignHello(a, nonce, tid)
			h.Signature[0] ^= 1
			return h, nonce
		},
		"short signature": func() (*Hello, []byte) {
			h := SignHello(a, nonce, tid)
			h.Signature = h.Signature[:10]
			return h, nonce
		},
	}
	for name, f := range bad {
		h, n := f()
		if err := VerifyHello(h, n); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestIdentity(t *testing.T) {
	a, err := NewIdentity(nil)
	if err != nil || !a.Valid() {
		t.Fatal(err)
	}
	b, err := IdentityFromSeed(a.Seed())
	if err != nil || b.ID() != a.ID() {
		t.Fatal("seed round trip")
	}
	if a.ID() != ident.PeerFromPublicKey(a.PublicKey()) {
		t.Fatal("peer ID differs from the overlay ID")
	}
	if _, err := IdentityFromSeed([]byte{1}); !errors.Is(err, ErrConfig) {
		t.Fatal(err)
	}
	if (Identity{}).Valid() {
		t.Fatal("zero identity valid")
	}
	p, err := ident.ParsePeer(a.ID().Hex())
	if err != nil || p != a.ID() {
		t.Fatal(err)
	}
	if _, err := ident.ParsePeer("xyz"); !errors.Is(err, ident.ErrPeer) {
		t.Fatal(err)
	}
}
