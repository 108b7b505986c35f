package task

import (
	"bytes"
	"errors"
	"testing"
)

// A spec's codec: absent keeps the canonical form (and so every older
// ID); a name from CodecNames, with or without a parameter, is valid; any
// other name is refused naming the field.
func TestCodecField(t *testing.T) {
	s := DefaultSpec()
	s.Name = "codec-check"
	before, err := s.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(before, []byte(`"codec"`)) {
		t.Fatalf("a spec without a codec writes one: %s", before)
	}
	for _, c := range []string{"f32", "f16", "int8:128", "delta-int4", "delta-topk:0.25"} {
		s.Codec = c
		if err := s.Validate(); err != nil {
			t.Errorf("codec %q: %v", c, err)
		}
		after, _ := s.Canonical()
		if !bytes.Contains(after, []byte(`"codec":"`+c+`"`)) {
			t.Errorf("codec %q not in the canonical form %s", c, after)
		}
	}
	for _, c := range []string{"zip", "int9", ":3", "F16"} {
		s.Codec = c
		err := s.Validate()
		if !errors.Is(err, ErrInvalid) || !bytes.Contains([]byte(err.Error()), []byte("codec")) {
			t.Errorf("codec %q: %v, want ErrInvalid naming codec", c, err)
		}
	}
}
