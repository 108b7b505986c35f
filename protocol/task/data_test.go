package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// withData is declared() reading its own data set.
func withData() Spec {
	s := declared()
	s.Dataset = ""
	s.Data = &Data{Manifest: strings.Repeat("ab", 32), URL: "https://example.org/letters/manifest.json"}
	return s
}

func TestDataField(t *testing.T) {
	s := withData()
	b, err := s.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"batch":32,"data":{"manifest_sha256":"`+strings.Repeat("ab", 32)+`","url":"https://example.org/letters/manifest.json"},"dataset":"",`)) {
		t.Fatalf("canonical form %s", b)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	back, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if mustID(t, back) != mustID(t, s) || mustID(t, s) == mustID(t, declared()) {
		t.Fatal("the data field does not round-trip into the ID")
	}
	other := withData()
	other.Data.Manifest = strings.Repeat("cd", 32)
	if mustID(t, other) == mustID(t, s) {
		t.Fatal("another manifest is the same task")
	}
	for _, c := range []struct {
		want string
		edit func(s *Spec)
	}{
		{"dataset \"mnist\": leave it empty", func(s *Spec) { s.Dataset = "mnist" }},
		{"data: a task with its own data set declares its model", func(s *Spec) { s.Model, s.Arch = nil, "mlp" }},
		{"data.manifest_sha256", func(s *Spec) { s.Data.Manifest = "ab" }},
		{"data.manifest_sha256", func(s *Spec) { s.Data.Manifest = strings.Repeat("AB", 32) }},
		{"data.url", func(s *Spec) { s.Data.URL = "file:///etc/passwd" }},
		{"dataset \"\"", func(s *Spec) { s.Data = nil }},
	} {
		s := withData()
		c.edit(&s)
		if err := s.Validate(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.want, err)
		}
	}
	s.Data.URL = ""
	if err := s.Validate(); err != nil {
		t.Fatalf("no URL: %v", err)
	}
}
