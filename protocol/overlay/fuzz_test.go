package overlay

import (
	"testing"

	"github.com/peerlearn/peerlearn/internal/wire/wiretest"
	"github.com/peerlearn/peerlearn/types/admission"
	"github.com/peerlearn/peerlearn/types/ident"
)

// FuzzUnmarshal: Unmarshal never panics, and whatever it accepts encodes
// back to exactly the same bytes (the format is canonical). The seed
// corpus is in testdata/fuzz/FuzzUnmarshal.
func FuzzUnmarshal(f *testing.F) {
	for _, m := range sampleMessages() {
		b, err := Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	// Messages with peer records (records.go).
	a := newAdmittance(f, 1, 0)
	t1, t2 := a.admit(f, recT0), a.admit(f, recT0)
	for _, m := range []Message{
		{Type: MsgHint, From: t1.Peer(), To: t2.Peer(), Side: Succ, Peers: []ident.Peer{t2.Peer()}, Records: []admission.Token{t1, t2}},
		{Type: MsgJoin, From: t1.Peer(), To: t2.Peer(), Roles: 1, Records: []admission.Token{t1}},
	} {
		b, err := Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, ok := wiretest.Canonical(t, b, Unmarshal, Marshal)
		if ok && m.EncodedSize() != len(b) {
			t.Fatalf("EncodedSize %d for %d bytes", m.EncodedSize(), len(b))
		}
	})
}
