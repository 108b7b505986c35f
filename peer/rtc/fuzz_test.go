package rtc

import (
	"bytes"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

// The decoders never panic, and what they accept re-encodes to the same
// bytes.

func FuzzParseFrame(f *testing.F) {
	a, b := testIdentity(f, 1), testIdentity(f, 2)
	c, _ := AppendControl(nil, a, oid(b), KindOverlay, 1, []byte("payload"))
	k, _ := AppendChunk(nil, 3, 65536, []byte("chunk"))
	f.Add(c)
	f.Add(k)
	f.Add([]byte{1, 1})
	f.Fuzz(func(t *testing.T, in []byte) {
		p, err := ParseFrame(in)
		if err != nil {
			return
		}
		switch {
		case p.Control != nil:
			// Re-encode the signed part; the signature is opaque.
			if len(p.Control.signed)+len(p.Control.sig) != len(in) || !bytes.Equal(p.Control.Payload, in[controlHeader:controlHeader+len(p.Control.Payload)]) {
				t.Fatalf("control frame does not cover its input")
			}
			_ = VerifyControl(p.Control, a.PublicKey(), oid(a), oid(b))
		case p.Chunk != nil:
			out, err := AppendChunk(nil, p.Chunk.Transfer, p.Chunk.Offset, p.Chunk.Data)
			if err != nil || !bytes.Equal(out, in) {
				t.Fatalf("chunk re-encodes to %x, %v", out, err)
			}
		default:
			t.Fatal("neither control nor chunk")
		}
	})
}

func FuzzDecodeSession(f *testing.F) {
	a, b := testIdentity(f, 1), testIdentity(f, 2)
	s, _ := EncodeSession(Session{Kind: SessionAnswer, To: oid(b), ID: 1, UnixMilli: 2, SDP: "v=0\r\n"}, a)
	f.Add(s)
	f.Add([]byte{1, 1})
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := DecodeSession(in)
		if err != nil {
			return
		}
		if !bytes.Equal(s.PublicKey, a.PublicKey()) && !bytes.Equal(s.PublicKey, b.PublicKey()) {
			t.Fatalf("accepted a session signed by an unknown key %x", s.PublicKey)
		}
	})
}

func FuzzUnmarshalEnvelope(f *testing.F) {
	e, _ := MarshalEnvelope(Envelope{Origin: oid(testIdentity(f, 1)), Target: oid(testIdentity(f, 2)), Path: []ident.Peer{oid(testIdentity(f, 1))}, Body: []byte("b")})
	f.Add(e)
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, in []byte) {
		e, err := UnmarshalEnvelope(in)
		if err != nil {
			return
		}
		out, err := MarshalEnvelope(e)
		if err != nil || !bytes.Equal(out, in) {
			t.Fatalf("re-encodes to %x, %v", out, err)
		}
	})
}

func FuzzUnmarshalManifest(f *testing.F) {
	m, _ := MarshalManifest(Manifest{Transfer: 1, Size: 100, ChunkSize: 64, Meta: []byte("m")})
	f.Add(m)
	f.Add(MarshalResult(Result{Transfer: 1}))
	f.Fuzz(func(t *testing.T, in []byte) {
		if m, err := UnmarshalManifest(in); err == nil {
			out, err := MarshalManifest(m)
			if err != nil || !bytes.Equal(out, in) {
				t.Fatalf("manifest re-encodes to %x, %v", out, err)
			}
		}
		if r, err := UnmarshalResult(in); err == nil {
			if out := MarshalResult(r); !bytes.Equal(out, in) {
				t.Fatalf("result re-encodes to %x", out)
			}
		}
	})
}
