package signal

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/admission"
)

// TestCheckWelcomeToken: the client refuses a welcome whose token is not
// its own, is signed by another key than the task names, or misses the
// task's proof of work.
func TestCheckWelcomeToken(t *testing.T) {
	spec, tid := testSpec(t)
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	is, err := admission.NewIssuer(key, [32]byte{1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	me, other := mustIdentity(t, 1), mustIdentity(t, 2)
	now := time.Now()
	tok, err := is.Issue(tid, me.PublicKey(), 0, 0, now)
	if err != nil {
		t.Fatal(err)
	}
	w := &Welcome{Task: spec, Token: tok.Marshal(), AdmissionKey: is.PublicKey()}
	if err := checkWelcomeToken(w, me.ID(), tid, now); err != nil {
		t.Fatal(err)
	}
	if err := checkWelcomeToken(w, other.ID(), tid, now); !errors.Is(err, ErrProtocol) || !errors.Is(err, admission.ErrPeer) {
		t.Fatalf("another peer's token: %v", err)
	}
	// The task names another admission key than the welcome's.
	named := spec
	key2 := ed25519.NewKeyFromSeed(append(make([]byte, ed25519.SeedSize-1), 7))
	named.Admission = &task.Admission{Key: hex.EncodeToString(key2.Public().(ed25519.PublicKey))}
	nid, _ := named.ID()
	w2 := &Welcome{Task: named, Token: tok.Marshal(), AdmissionKey: is.PublicKey()}
	if err := checkWelcomeToken(w2, me.ID(), nid, now); !errors.Is(err, ErrProtocol) {
		t.Fatalf("key mismatch: %v", err)
	}
	// The task asks for proof of work the token lacks.
	hard := spec
	hard.Admission = &task.Admission{PoWBits: 12}
	hid, _ := hard.ID()
	weak, _ := is.Issue(hid, me.PublicKey(), 0, 0, now)
	if admission.CheckPoW(hid, me.PublicKey(), weak.PoW, 12) {
		t.Fatal("fixture: nonce 0 meets 12 bits for this key; pick another")
	}
	w3 := &Welcome{Task: hard, Token: weak.Marshal(), AdmissionKey: is.PublicKey()}
	if err := checkWelcomeToken(w3, me.ID(), hid, now); !errors.Is(err, admission.ErrPoW) {
		t.Fatalf("weak proof of work: %v", err)
	}
}

func mustIdentity(t *testing.T, b byte) Identity {
	seed := make([]byte, 32)
	seed[0] = b
	id, err := IdentityFromSeed(seed)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
