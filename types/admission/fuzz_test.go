package admission

import (
	"bytes"
	"testing"
)

// FuzzUnmarshal: Unmarshal never panics, whatever it accepts encodes back
// to the same bytes, and a token it decodes from random bytes does not
// verify under the test server's key. Seed corpus: testdata/fuzz.
func FuzzUnmarshal(f *testing.F) {
	is := testIssuer(f, 1)
	tok, err := is.Issue(testTask, testKey(f, 1), 0, 0, t0)
	if err != nil {
		f.Fatal(err)
	}
	good := tok.Marshal()
	f.Add(good)
	f.Add(good[:10])
	f.Fuzz(func(t *testing.T, b []byte) {
		tok, err := Unmarshal(b)
		if err != nil {
			return
		}
		if !bytes.Equal(tok.Marshal(), b) {
			t.Fatal("not canonical")
		}
		if Verify(&tok, policy(is, 0)) == nil && !bytes.Equal(b, good) {
			t.Fatal("a forged token verifies")
		}
	})
}
