package wiretest

import (
	"errors"
	"fmt"
	"testing"
)

var errShort = errors.New("short")

// A toy codec: one length byte, then that many bytes.
func decode(b []byte) (string, error) {
	if len(b) == 0 || len(b) < 1+int(b[0]) {
		return "", errShort
	}
	if len(b) > 1+int(b[0]) {
		return "", errors.New("trailing")
	}
	return string(b[1:]), nil
}

func encode(s string) ([]byte, error) { return append([]byte{byte(len(s))}, s...), nil }

// A codec that is not canonical: it accepts upper case but writes lower.
func encodeLower(s string) ([]byte, error) {
	b, _ := encode(s)
	for i := 1; i < len(b); i++ {
		if b[i] >= 'A' && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return b, nil
}

// recorder is a testing.TB that records failures instead of stopping.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	if r.failed == "" {
		r.failed = fmt.Sprintf(format, args...)
	}
}

func TestCanonical(t *testing.T) {
	r := &recorder{TB: t}
	if m, ok := Canonical(r, []byte{2, 'h', 'i'}, decode, encode); !ok || m != "hi" || r.failed != "" {
		t.Fatalf("good input: %q %v %q", m, ok, r.failed)
	}
	if _, ok := Canonical(r, []byte{2, 'h'}, decode, encode); ok || r.failed != "" {
		t.Fatalf("refused input: ok %v, failure %q", ok, r.failed)
	}
	if Canonical(r, []byte{2, 'H', 'i'}, decode, encodeLower); r.failed == "" {
		t.Fatal("a non-canonical codec passed")
	}
}

func TestTruncated(t *testing.T) {
	r := &recorder{TB: t}
	if Truncated(r, []byte{3, 'a', 'b', 'c'}, decode, errShort); r.failed != "" {
		t.Fatalf("good codec failed: %s", r.failed)
	}
	lenient := func(b []byte) (string, error) { return string(b), nil }
	if Truncated(r, []byte{3, 'a', 'b', 'c'}, lenient, errShort); r.failed == "" {
		t.Fatal("a codec that accepts prefixes passed")
	}
}

func TestRoundTrip(t *testing.T) {
	r := &recorder{TB: t}
	if b := RoundTrip(r, "ok", encode, decode); string(b) != "\x02ok" || r.failed != "" {
		t.Fatalf("good codec: % x, failure %q", b, r.failed)
	}
	if RoundTrip(r, "OK", encodeLower, decode); r.failed == "" {
		t.Fatal("a lossy codec passed")
	}
}
