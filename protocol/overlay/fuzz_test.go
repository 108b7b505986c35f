package overlay

import (
	"testing"

	"github.com/peerlearn/peerlearn/internal/wire/wiretest"
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
		m, ok := wiretest.Canonical(t, b, Unmarshal, Marshal)
		if ok && m.EncodedSize() != len(b) {
			t.Fatalf("EncodedSize %d for %d bytes", m.EncodedSize(), len(b))
		}
	})
}
