// Package wiretest holds the checks every canonical binary codec's tests
// make (protocol/mep, plexus, evalreq, gossip, overlay): encoding then
// decoding gives back the message, decoding then encoding gives back the
// input, and a cut-short message is refused as truncated. Test code only.
package wiretest

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// Canonical checks that whatever decode accepts, encode turns back into
// exactly b (a fuzz target's body: decode must also not panic). It returns
// the decoded message and whether decode accepted b.
func Canonical[M any](t testing.TB, b []byte, decode func([]byte) (M, error), encode func(M) ([]byte, error)) (M, bool) {
	t.Helper()
	m, err := decode(b)
	if err != nil {
		return m, false
	}
	out, err := encode(m)
	if err != nil {
		t.Fatalf("accepted % x but cannot re-encode it: %v", b, err)
	}
	if !bytes.Equal(out, b) {
		t.Fatalf("accepted % x, re-encodes as % x", b, out)
	}
	return m, true
}

// RoundTrip encodes m, checks that decoding gives m back (reflect.DeepEqual)
// and returns the encoding.
func RoundTrip[M any](t testing.TB, m M, encode func(M) ([]byte, error), decode func([]byte) (M, error)) []byte {
	t.Helper()
	b, err := encode(m)
	if err != nil {
		t.Fatalf("%+v: %v", m, err)
	}
	got, err := decode(b)
	if err != nil {
		t.Fatalf("%+v: %v", m, err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("decoded %+v, want %+v", got, m)
	}
	return b
}

// Truncated checks that decode refuses every proper prefix of good with
// an error wrapping want.
func Truncated[M any](t testing.TB, good []byte, decode func([]byte) (M, error), want error) {
	t.Helper()
	for n := range len(good) {
		if _, err := decode(good[:n]); !errors.Is(err, want) {
			t.Fatalf("prefix of %d bytes: %v, want %v", n, err, want)
		}
	}
}
