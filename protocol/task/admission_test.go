package task

import (
	"errors"
	"strings"
	"testing"

	"github.com/peerlearn/peerlearn/types/admission"
)

// TestAdmissionField: the admission policy is validated, changes the task
// ID when present, and leaves older specs' IDs alone when absent.
func TestAdmissionField(t *testing.T) {
	key := strings.Repeat("0f", 32)
	for _, c := range []struct {
		a  *Admission
		ok bool
	}{
		{nil, true},
		{&Admission{}, true},
		{&Admission{Key: key, PoWBits: admission.MaxPoWBits}, true},
		{&Admission{PoWBits: admission.MaxPoWBits + 1}, false},
		{&Admission{PoWBits: -1}, false},
		{&Admission{Key: key[2:]}, false},
		{&Admission{Key: strings.ToUpper(key)}, false},
		{&Admission{Key: "zz" + key[2:]}, false},
	} {
		s := golden()
		s.Admission = c.a
		if err := s.Validate(); (err == nil) != c.ok {
			t.Errorf("%+v: %v", c.a, err)
		} else if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: %v does not wrap ErrInvalid", c.a, err)
		}
	}
	s := golden()
	if id, _ := s.ID(); id.Hex() != goldenID {
		t.Fatal("a spec without admission changed its ID")
	}
	s.Admission = &Admission{Key: key, PoWBits: 8}
	id, err := s.ID()
	if err != nil || id.Hex() == goldenID {
		t.Fatalf("admission does not change the ID: %v", err)
	}
	if s.PoWBits() != 8 || len(s.AdmissionKey()) != 32 || golden().PoWBits() != 0 || golden().AdmissionKey() != nil {
		t.Fatal("accessors")
	}
	b, _ := s.Canonical()
	back, err := Parse(b)
	if err != nil || back.Admission == nil || *back.Admission != *s.Admission {
		t.Fatalf("parse back: %v", err)
	}
}
