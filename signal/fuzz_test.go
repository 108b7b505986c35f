package signal

import (
	"bytes"
	"errors"
	"testing"
)

// Decode must return a valid message or an error wrapping ErrMalformed,
// ErrVersion or ErrTooLarge, never panic; an accepted message encodes and
// decodes back to the same bytes. Seeds live in
// testdata/fuzz/FuzzDecode/; run with `go test -fuzz FuzzDecode ./signal/`.
func FuzzDecode(f *testing.F) {
	for _, m := range sampleMessages(f) {
		b, err := Encode(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			if m != nil || !(errors.Is(err, ErrMalformed) || errors.Is(err, ErrVersion) || errors.Is(err, ErrTooLarge)) {
				t.Fatalf("error %v (message %v)", err, m != nil)
			}
			return
		}
		enc, err := Encode(m)
		if err != nil {
			t.Fatalf("accepted message does not encode: %v", err)
		}
		m2, err := Decode(enc)
		if err != nil {
			t.Fatalf("re-encoded message refused: %v", err)
		}
		enc2, _ := Encode(m2)
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding not stable:\n%s\n%s", enc, enc2)
		}
	})
}
