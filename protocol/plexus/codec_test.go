package plexus

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/peerlearn/peerlearn/internal/wire/wiretest"
)

func sampleMessages() []Message {
	return []Message{
		{Type: MsgTrain, From: pid(1), Round: 7, Bandwidth: 1 << 20, Model: ModelHeader{Arch: "cnn", NumParams: 89834}},
		{Type: MsgTrained, From: pid(2), Round: 7, Bandwidth: 3, Attempt: 2, Model: ModelHeader{Arch: "cnn", NumParams: 89834, DataSize: 50}},
		{Type: MsgAggregated, From: pid(3), Round: MaxRound, Bandwidth: 1, Count: 10},
		{Type: MsgOver, From: pid(4), Round: 9, Bandwidth: 2, Count: 1},
	}
}

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
	want := []byte{CodecVersion, byte(MsgTrained)}
	want = append(want, m.From[:]...)
	want = binary.BigEndian.AppendUint64(want, 7)
	want = binary.BigEndian.AppendUint64(want, 3)
	want = append(want, 2, 3, 'c', 'n', 'n')
	want = binary.BigEndian.AppendUint32(want, 89834)
	want = binary.BigEndian.AppendUint64(want, 50)
	if !bytes.Equal(b, want) {
		t.Fatalf("trained encodes to % x", b)
	}
	if WireBytes(m) != int64(len(b))+4*89834 || WireBytes(sampleMessages()[2]) != 54 {
		t.Fatalf("wire bytes %d %d", WireBytes(m), WireBytes(sampleMessages()[2]))
	}
}

func TestDecodeRejects(t *testing.T) {
	train, _ := Encode(sampleMessages()[0])
	trained, _ := Encode(sampleMessages()[1])
	agg, _ := Encode(sampleMessages()[2])
	over, _ := Encode(sampleMessages()[3])
	mut := func(good []byte, f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	const body = baseSize
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"version 0", mut(train, func(b []byte) []byte { b[0] = 0; return b }), ErrCodecVersion},
		{"version 2", mut(train, func(b []byte) []byte { b[0] = 2; return b }), ErrCodecVersion},
		{"type 0", mut(train, func(b []byte) []byte { b[1] = 0; return b }), ErrUnknownType},
		{"type 5", mut(train, func(b []byte) []byte { b[1] = 5; return b }), ErrUnknownType},
		{"trailing", append(bytes.Clone(agg), 0), ErrTrailing},
		{"oversized", make([]byte, MaxMessageSize+1), ErrOversized},
		{"round 0", mut(train, func(b []byte) []byte { clear(b[34:42]); return b }), ErrField},
		{"round too big", mut(agg, func(b []byte) []byte { b[34] = 1; return b }), ErrField},
		{"bandwidth 0", mut(train, func(b []byte) []byte { clear(b[42:50]); return b }), ErrField},
		{"arch len 0", mut(train, func(b []byte) []byte { b[body] = 0; return b }), ErrField},
		{"arch len 200", mut(train, func(b []byte) []byte { b[body] = 200; return b }), ErrOversized},
		{"no params", mut(train, func(b []byte) []byte { clear(b[len(b)-4:]); return b }), ErrField},
		{"too many params", mut(train, func(b []byte) []byte { b[len(b)-4] = 0xff; return b }), ErrOversized},
		{"data size 0", mut(trained, func(b []byte) []byte { clear(b[len(b)-8:]); return b }), ErrField},
		{"data size huge", mut(trained, func(b []byte) []byte { b[len(b)-8] = 1; return b }), ErrField},
		{"count 0", mut(agg, func(b []byte) []byte { clear(b[body:]); return b }), ErrField},
		{"over count 0", mut(over, func(b []byte) []byte { clear(b[body:]); return b }), ErrField},
	}
	for _, c := range cases {
		if _, err := Decode(c.in); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	for _, good := range [][]byte{train, trained, agg, over} {
		wiretest.Truncated(t, good, Decode, ErrTruncated)
	}
	bad := sampleMessages()[0]
	bad.Model.DataSize = 5
	if _, err := Encode(bad); !errors.Is(err, ErrField) {
		t.Errorf("MsgTrain with a data size: %v", err)
	}
}

// FuzzDecode: Decode never panics, and whatever it accepts re-encodes to
// the same bytes (the codec is canonical). Seeds: testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) { wiretest.Canonical(t, b, Decode, Encode) })
}
