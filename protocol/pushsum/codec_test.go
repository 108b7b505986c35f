package pushsum

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/peerlearn/peerlearn/internal/wire/wiretest"
	"github.com/peerlearn/peerlearn/types/ident"
)

func pid(b byte) ident.Peer { return ident.PeerFromPublicKey([]byte{b}) }

func TestCodec(t *testing.T) {
	m := Message{Type: MsgShare, From: pid(1), Leader: pid(2), Round: 77, S: 3.25, W: 0.125}
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{Tag, byte(MsgShare)}
	want = append(want, m.From[:]...)
	want = append(want, m.Leader[:]...)
	want = binary.BigEndian.AppendUint32(want, 77)
	want = binary.BigEndian.AppendUint64(want, math.Float64bits(3.25))
	want = binary.BigEndian.AppendUint64(want, math.Float64bits(0.125))
	if !bytes.Equal(b, want) || len(b) != MessageSize || !IsFrame(b) {
		t.Fatalf("encodes to % x", b)
	}
	got, err := Decode(b)
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("decoded %+v %v", got, err)
	}
	f64 := func(off int, v float64) []byte {
		c := bytes.Clone(b)
		binary.BigEndian.PutUint64(c[off:], math.Float64bits(v))
		return c
	}
	sOff, wOff := MessageSize-16, MessageSize-8
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"a model protocol's frame (version 1)", append([]byte{1}, b[1:]...), ErrTag},
		{"type 0", append([]byte{Tag, 0}, b[2:]...), ErrUnknownType},
		{"type 2", append([]byte{Tag, 2}, b[2:]...), ErrUnknownType},
		{"trailing", append(bytes.Clone(b), 0), ErrTrailing},
		{"s NaN", f64(sOff, math.NaN()), ErrField},
		{"s +Inf", f64(sOff, math.Inf(1)), ErrField},
		{"s negative", f64(sOff, -1), ErrField},
		{"s above MaxMass", f64(sOff, MaxMass*2), ErrField},
		{"w NaN", f64(wOff, math.NaN()), ErrField},
		{"w above 1", f64(wOff, 1.5), ErrField},
		{"w negative", f64(wOff, -0.5), ErrField},
	}
	for _, c := range cases {
		if _, err := Decode(c.in); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	wiretest.Truncated(t, b, Decode, ErrTruncated)
	if _, err := Encode(Message{Type: MsgShare, S: math.Inf(1)}); !errors.Is(err, ErrField) {
		t.Errorf("Encode(s = +Inf) = %v, want ErrField", err)
	}
}

// FuzzDecode: Decode never panics, and whatever it accepts re-encodes to
// the same bytes (the codec is canonical). Seeds: testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) { wiretest.Canonical(t, b, Decode, Encode) })
}
