package mep

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/internal/wire/wiretest"
	"github.com/peerlearn/peerlearn/types/ident"
)

func sampleMessages() []Message {
	fp := Fingerprint{0xab, 1, 2, 3}
	model := Message{
		Type: MsgModel, From: id(7), Version: 42, Fingerprint: fp,
		Model: ModelHeader{Task: ident.Task{9, 9}, Arch: "mlp-784-128-10", NumParams: 101770,
			DataSize: 600, Period: 30, DataConf: 0.8},
	}
	withH := model
	withH.Model.HasHessian = true
	return []Message{
		{Type: MsgOffer, From: id(1), Version: 1, Fingerprint: fp},
		{Type: MsgHave, From: id(2), Version: 3, Fingerprint: fp},
		{Type: MsgNeed, From: id(3), Version: math.MaxUint64, Fingerprint: fp},
		model,
		withH,
	}
}

func TestCodecRoundTrip(t *testing.T) {
	for _, m := range sampleMessages() {
		wiretest.RoundTrip(t, m, Encode, Decode)
	}
}

func TestCodecLayout(t *testing.T) {
	m := sampleMessages()[0]
	b, _ := Encode(m)
	want := []byte{CodecVersion, byte(MsgOffer)}
	want = append(want, m.From[:]...)
	want = binary.BigEndian.AppendUint64(want, 1)
	want = append(want, m.Fingerprint[:]...)
	if !bytes.Equal(b, want) || len(b) != 74 {
		t.Fatalf("offer encodes to % x", b)
	}
	h := sampleMessages()[4]
	b, _ = Encode(h)
	// 74 + task 32 + len 1 + "mlp-784-128-10" 14 + 4 + flags 1 + 8 + 4 + 8
	if len(b) != 146 || b[74+32] != 14 || b[74+32+1+14+4] != 1 {
		t.Fatalf("model header: %d bytes % x", len(b), b)
	}
	if p := h.Model.PayloadBytes(); p != 2*4*101770 {
		t.Fatalf("payload %d", p)
	}
}

func TestDecodeRejects(t *testing.T) {
	good, _ := Encode(sampleMessages()[3])
	mut := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	archAt := 74 + 32 // arch length byte
	nAt := archAt + 1 + len("mlp-784-128-10")
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"version 0", mut(func(b []byte) []byte { b[0] = 0; return b }), ErrCodecVersion},
		{"version 2", mut(func(b []byte) []byte { b[0] = 2; return b }), ErrCodecVersion},
		{"type 0", mut(func(b []byte) []byte { b[1] = 0; return b }), ErrUnknownType},
		{"type 5", mut(func(b []byte) []byte { b[1] = 5; return b }), ErrUnknownType},
		{"trailing", append(bytes.Clone(good), 0), ErrTrailing},
		{"oversized", make([]byte, MaxMessageSize+1), ErrOversized},
		{"model version 0", mut(func(b []byte) []byte { clear(b[34:42]); return b }), ErrField},
		{"zero fingerprint", mut(func(b []byte) []byte { clear(b[42:74]); return b }), ErrField},
		{"arch len 0", mut(func(b []byte) []byte { b[archAt] = 0; return b }), ErrField},
		{"arch len 200", mut(func(b []byte) []byte { b[archAt] = 200; return b }), ErrOversized},
		{"no params", mut(func(b []byte) []byte { clear(b[nAt : nAt+4]); return b }), ErrField},
		{"too many params", mut(func(b []byte) []byte { b[nAt] = 0xff; return b }), ErrOversized},
		{"flags", mut(func(b []byte) []byte { b[nAt+4] = 2; return b }), ErrField},
		{"data size", mut(func(b []byte) []byte { b[nAt+5] = 0xff; return b }), ErrOversized},
		{"period 0", mut(func(b []byte) []byte { clear(b[nAt+13 : nAt+17]); return b }), ErrField},
		{"conf NaN", mut(func(b []byte) []byte {
			binary.BigEndian.PutUint64(b[nAt+17:], math.Float64bits(math.NaN()))
			return b
		}), ErrField},
		{"conf 1.5", mut(func(b []byte) []byte {
			binary.BigEndian.PutUint64(b[nAt+17:], math.Float64bits(1.5))
			return b
		}), ErrField},
	}
	for _, c := range cases {
		if _, err := Decode(c.in); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	wiretest.Truncated(t, good, Decode, ErrTruncated)
	if _, err := Encode(Message{Type: 9, Version: 1, Fingerprint: Fingerprint{1}}); !errors.Is(err, ErrUnknownType) {
		t.Errorf("encode unknown type: %v", err)
	}
}

// FuzzDecode: Decode never panics, and whatever it accepts re-encodes to
// the same bytes (the codec is canonical). Seeds: testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) { wiretest.Canonical(t, b, Decode, Encode) })
}
