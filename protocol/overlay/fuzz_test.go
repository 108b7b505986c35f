package overlay

import (
	"bytes"
	"testing"
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
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Unmarshal(b)
		if err != nil {
			return
		}
		again, err := Marshal(m)
		if err != nil {
			t.Fatalf("accepted %x but cannot re-encode it: %v", b, err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("accepted %x, re-encodes as %x", b, again)
		}
		if m.EncodedSize() != len(b) {
			t.Fatalf("EncodedSize %d for %d bytes", m.EncodedSize(), len(b))
		}
	})
}
