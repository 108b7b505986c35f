package evalreq

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/internal/wire/wiretest"
)

func TestCodecRoundTrip(t *testing.T) {
	for _, m := range sampleMessages() {
		if b := wiretest.RoundTrip(t, m, Encode, Decode); len(b) != EncodedSize(m) {
			t.Errorf("%v: %d bytes, EncodedSize %d", m.Type, len(b), EncodedSize(m))
		}
	}
}

func TestCodecLayout(t *testing.T) {
	m := sampleMessages()[1]
	b, _ := Encode(m)
	want := []byte{CodecVersion, byte(MsgEvalResult)}
	want = append(want, m.From[:]...)
	want = binary.BigEndian.AppendUint64(want, 7)
	want = binary.BigEndian.AppendUint64(want, 3)
	want = binary.BigEndian.AppendUint64(want, math.Float64bits(1.25))
	want = binary.BigEndian.AppendUint64(want, math.Float64bits(0.625))
	want = binary.BigEndian.AppendUint32(want, 125)
	if !bytes.Equal(b, want) || len(b) != 70 {
		t.Fatalf("result encodes to % x", b)
	}
	req := sampleMessages()[0]
	if p := req.PayloadBytes(); p != 4*73418 {
		t.Fatalf("payload %d", p)
	}
	if p := m.PayloadBytes(); p != 0 {
		t.Fatalf("result payload %d", p)
	}
}

func TestDecodeRejects(t *testing.T) {
	req, _ := Encode(sampleMessages()[0])
	res, _ := Encode(sampleMessages()[1])
	ref, _ := Encode(sampleMessages()[2])
	mut := func(good []byte, f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	setF := func(at int, v float64) func([]byte) []byte {
		return func(b []byte) []byte { binary.BigEndian.PutUint64(b[at:], math.Float64bits(v)); return b }
	}
	const body = baseSize
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"version 0", mut(req, func(b []byte) []byte { b[0] = 0; return b }), ErrCodecVersion},
		{"version 2", mut(req, func(b []byte) []byte { b[0] = 2; return b }), ErrCodecVersion},
		{"type 0", mut(req, func(b []byte) []byte { b[1] = 0; return b }), ErrUnknownType},
		{"type 4", mut(req, func(b []byte) []byte { b[1] = 4; return b }), ErrUnknownType},
		{"trailing", append(bytes.Clone(res), 0), ErrTrailing},
		{"oversized", make([]byte, MaxMessageSize+1), ErrOversized},
		{"req id 0", mut(res, func(b []byte) []byte { clear(b[34:42]); return b }), ErrField},
		{"arch len 0", mut(req, func(b []byte) []byte { b[body] = 0; return b }), ErrField},
		{"arch len 200", mut(req, func(b []byte) []byte { b[body] = 200; return b }), ErrOversized},
		{"no params", mut(req, func(b []byte) []byte { clear(b[len(b)-4:]); return b }), ErrField},
		{"too many params", mut(req, func(b []byte) []byte { b[len(b)-4] = 0xff; return b }), ErrOversized},
		{"loss NaN", mut(res, setF(body, math.NaN())), ErrField},
		{"loss -1", mut(res, setF(body, -1)), ErrField},
		{"loss +Inf", mut(res, setF(body, math.Inf(1))), ErrField},
		{"accuracy 1.5", mut(res, setF(body+8, 1.5)), ErrField},
		{"accuracy NaN", mut(res, setF(body+8, math.NaN())), ErrField},
		{"0 samples", mut(res, func(b []byte) []byte { clear(b[len(b)-4:]); return b }), ErrField},
		{"reason 0", mut(ref, func(b []byte) []byte { b[body] = 0; return b }), ErrField},
		{"reason 9", mut(ref, func(b []byte) []byte { b[body] = 9; return b }), ErrField},
	}
	for _, c := range cases {
		if _, err := Decode(c.in); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	for _, good := range [][]byte{req, res, ref} {
		wiretest.Truncated(t, good, Decode, ErrTruncated)
	}
	if _, err := Encode(Message{Type: 9, ReqID: 1}); !errors.Is(err, ErrUnknownType) {
		t.Errorf("encode unknown type: %v", err)
	}
}

// FuzzDecode: Decode never panics, and whatever it accepts re-encodes to
// the same bytes (the codec is canonical). Seeds: testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) { wiretest.Canonical(t, b, Decode, Encode) })
}
