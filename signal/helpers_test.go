package signal

import (
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/task"
	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

// testSpec is a valid task spec for welcomes.
func testSpec(t testing.TB) (task.Spec, ident.Task) {
	t.Helper()
	s := task.DefaultSpec()
	s.Name = "signal-test"
	id, err := s.ID()
	if err != nil {
		t.Fatal(err)
	}
	return s, id
}

// testIdentity is a deterministic identity.
func testIdentity(t testing.TB, b byte) Identity {
	t.Helper()
	seed := make([]byte, 32)
	seed[0] = b
	id, err := IdentityFromSeed(seed)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// sampleMessages has one valid message of every type.
func sampleMessages(t testing.TB) []*Message {
	spec, tid := testSpec(t)
	a, b := testIdentity(t, 1), testIdentity(t, 2)
	nonce := make([]byte, NonceSize)
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	is, err := admission.NewIssuer(key, [32]byte{1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	issued, err := is.Issue(tid, a.PublicKey(), 0, 0, time.Unix(1_800_000_000, 0))
	if err != nil {
		t.Fatal(err)
	}
	tok := issued.Marshal()
	return []*Message{
		{Type: MsgChallenge, Challenge: &Challenge{Nonce: nonce}},
		{Type: MsgHello, Hello: SignHello(a, nonce, tid)},
		{Type: MsgWelcome, Welcome: &Welcome{
			Contacts: []ident.Peer{b.ID()},
			ICEServers: []ICEServer{{URLs: []string{"stun:127.0.0.1:3478"}},
				{URLs: []string{"turn:127.0.0.1:3478?transport=udp"}, Username: "1:x", Credential: "c"}},
			Task: spec, BootstrapMS: 30000,
		}},
		{Type: MsgRelay, Relay: &Relay{From: a.ID(), To: b.ID(), Kind: RelayOffer, Data: `{"type":"offer","sdp":"v=0"}`}},
		{Type: MsgConnected, Connected: &Connected{Peer: b.ID()}},
		{Type: MsgBye, Bye: &Bye{Reason: "leaving"}},
		{Type: MsgError, Error: &Refusal{Code: CodeNotAllowed, Text: "outside the bootstrap window"}},
		{Type: MsgPing},
		{Type: MsgPong},
		// Admission (admission.go).
		{Type: MsgChallenge, Challenge: &Challenge{Nonce: nonce, PoWBits: 12}},
		{Type: MsgHello, Hello: func() *Hello { h := SignHello(a, nonce, tid); h.PoW, h.Token = 77, tok; return h }()},
		{Type: MsgWelcome, Welcome: &Welcome{Task: spec, BootstrapMS: 30000, Token: tok, AdmissionKey: key.Public().(ed25519.PublicKey)}},
		// Summaries (summary.go).
		{Type: MsgSummary, Summary: func() *Summary {
			s := &Summary{Seq: 3, Round: 12, Accuracy: 0.875, Samples: 38_400, BytesOut: 1 << 20}
			SignSummary(a, tid, s)
			return s
		}()},
		{Type: MsgSummary, Summary: func() *Summary { s := &Summary{Seq: 1, Accuracy: -1}; SignSummary(a, tid, s); return s }()},
	}
}
