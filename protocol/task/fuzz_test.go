package task

import (
	"errors"
	"testing"
)

// Parse must return a valid spec or an error wrapping a sentinel, never
// panic; an accepted spec's canonical form parses back to the same ID.
// Seeds live in testdata/fuzz/FuzzParse/; run with
// `go test -fuzz FuzzParse ./task/`.
func FuzzParse(f *testing.F) {
	f.Add([]byte(goldenCanonical))
	f.Add([]byte(declaredCanonical))
	f.Add([]byte(`{"version":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse(b)
		if err != nil {
			for _, e := range []error{ErrInvalid, ErrVersion, ErrMalformed, ErrTooLarge} {
				if errors.Is(err, e) {
					return
				}
			}
			t.Fatalf("error without a sentinel: %v", err)
		}
		id, err := s.ID()
		if err != nil {
			t.Fatalf("accepted spec has no ID: %v", err)
		}
		c, _ := s.Canonical()
		again, err := Parse(c)
		if err != nil {
			t.Fatalf("canonical form refused: %v", err)
		}
		if id2, _ := again.ID(); id2 != id {
			t.Fatal("ID changed through the canonical form")
		}
	})
}
