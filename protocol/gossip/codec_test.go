package gossip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"

	"github.com/peerlearn/peerlearn/internal/wire/wiretest"
)

func TestCodec(t *testing.T) {
	m := Message{Type: MsgModel, From: id(4), Age: 1234, Arch: "cnn", NumParams: 89834}
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{CodecVersion, byte(MsgModel)}
	want = append(want, m.From[:]...)
	want = binary.BigEndian.AppendUint64(want, 1234)
	want = append(want, 3, 'c', 'n', 'n')
	want = binary.BigEndian.AppendUint32(want, 89834)
	if !bytes.Equal(b, want) || len(b) != EncodedSize(m) || WireBytes(m) != int64(len(b))+4*89834 {
		t.Fatalf("encodes to % x", b)
	}
	got, err := Decode(b)
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("decoded %+v %v", got, err)
	}
	mut := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(b)) }
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"version 2", mut(func(b []byte) []byte { b[0] = 2; return b }), ErrCodecVersion},
		{"type 3", mut(func(b []byte) []byte { b[1] = 3; return b }), ErrUnknownType},
		{"trailing", append(bytes.Clone(b), 0), ErrTrailing},
		{"oversized", make([]byte, MaxMessageSize+1), ErrOversized},
		{"age", mut(func(b []byte) []byte { b[34] = 0xff; return b }), ErrField},
		{"arch len 0", mut(func(b []byte) []byte { b[baseSize] = 0; return b }), ErrField},
		{"arch len 200", mut(func(b []byte) []byte { b[baseSize] = 200; return b }), ErrOversized},
		{"no params", mut(func(b []byte) []byte { clear(b[len(b)-4:]); return b }), ErrField},
		{"too many params", mut(func(b []byte) []byte { b[len(b)-4] = 0xff; return b }), ErrOversized},
	}
	for _, c := range cases {
		if _, err := Decode(c.in); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	wiretest.Truncated(t, b, Decode, ErrTruncated)
}

// FuzzDecode: Decode never panics, and whatever it accepts re-encodes to
// the same bytes (the codec is canonical). Seeds: testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) { wiretest.Canonical(t, b, Decode, Encode) })
}

// A MsgRound carries the sender's degree after the round; a degree
// outside 1..MaxDegree, or one on a MsgModel, is refused.
func TestCodecRound(t *testing.T) {
	m := Message{Type: MsgRound, From: id(7), Age: 12, Degree: 10, Arch: "mlp", NumParams: 100}
	b, err := Encode(m)
	if err != nil || len(b) != EncodedSize(m) {
		t.Fatalf("encode: %d bytes, %v", len(b), err)
	}
	got, err := Decode(b)
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("decoded %+v %v", got, err)
	}
	for _, bad := range []Message{
		{Type: MsgRound, From: id(7), Age: 1, Arch: "mlp", NumParams: 1},
		{Type: MsgRound, From: id(7), Age: 1, Degree: MaxDegree + 1, Arch: "mlp", NumParams: 1},
		{Type: MsgModel, From: id(7), Age: 1, Degree: 3, Arch: "mlp", NumParams: 1},
	} {
		if _, err := Encode(bad); !errors.Is(err, ErrField) {
			t.Errorf("%+v: %v, want ErrField", bad, err)
		}
	}
	zero := bytes.Clone(b)
	zero[baseSize], zero[baseSize+1] = 0, 0
	if _, err := Decode(zero); !errors.Is(err, ErrField) {
		t.Errorf("degree 0: %v, want ErrField", err)
	}
	wiretest.Truncated(t, b, Decode, ErrTruncated)
}
