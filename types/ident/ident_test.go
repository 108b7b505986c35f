package ident

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestPeerFromPublicKey(t *testing.T) {
	pub := []byte("a public key")
	if PeerFromPublicKey(pub) != Peer(sha256.Sum256(pub)) {
		t.Fatal("not the SHA-256 of the key")
	}
}

func TestPeerText(t *testing.T) {
	p := PeerFromPublicKey([]byte{7})
	b, err := json.Marshal(struct{ P Peer }{p})
	if err != nil || string(b) != `{"P":"`+p.Hex()+`"}` {
		t.Fatalf("marshal: %s %v", b, err)
	}
	var back struct{ P Peer }
	if err := json.Unmarshal(b, &back); err != nil || back.P != p {
		t.Fatalf("unmarshal: %v %v", back.P, err)
	}
	// The zero ID is the empty string both ways: a field that names nobody.
	b, _ = json.Marshal(struct{ P Peer }{})
	if string(b) != `{"P":""}` {
		t.Fatalf("zero: %s", b)
	}
	back.P = p
	if err := json.Unmarshal(b, &back); err != nil || !back.P.IsZero() {
		t.Fatalf("zero back: %v %v", back.P, err)
	}
	if got, err := ParsePeer(strings.ToUpper(p.Hex())); err != nil || got != p {
		t.Fatalf("upper case: %v", err)
	}
	for _, bad := range []string{"ab", p.Hex() + "0", "zz" + p.Hex()[2:]} {
		if _, err := ParsePeer(bad); !errors.Is(err, ErrPeer) {
			t.Errorf("ParsePeer(%q): %v", bad, err)
		}
	}
	if p.String() != p.Hex()[:8] {
		t.Fatalf("String %q", p.String())
	}
}

func TestPeerLess(t *testing.T) {
	a, b := Peer{1}, Peer{2}
	if !a.Less(b) || b.Less(a) || a.Less(a) {
		t.Fatal("Less is not the bytewise order")
	}
}

func TestTaskText(t *testing.T) {
	id := Task(sha256.Sum256([]byte("spec")))
	b, err := json.Marshal(id)
	if err != nil || string(b) != `"`+id.Hex()+`"` {
		t.Fatalf("marshal: %s %v", b, err)
	}
	var back Task
	if err := json.Unmarshal(b, &back); err != nil || back != id {
		t.Fatalf("unmarshal: %v", err)
	}
	// Unlike a peer field, a task is always named: "" is refused.
	for _, bad := range []string{"", "ab", id.Hex() + "0", "zz" + id.Hex()[2:]} {
		if _, err := ParseTask(bad); !errors.Is(err, ErrTask) {
			t.Errorf("ParseTask(%q): %v", bad, err)
		}
	}
	if id.String() != id.Hex()[:16] || id.IsZero() || !(Task{}).IsZero() {
		t.Fatal("String/IsZero")
	}
	if err := id.Check(id); err != nil {
		t.Fatal(err)
	}
	if err := id.Check(Task{1}); !errors.Is(err, ErrTaskMismatch) {
		t.Fatalf("mismatch: %v", err)
	}
}
