package task

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/peerlearn/peerlearn/types/ident"
	"github.com/peerlearn/peerlearn/types/partition"
)

// Normalized returns s validated and with its partition spec in canonical
// form (partition.Canonical, the form engine/data reads too), so that
// specs meaning the same task encode alike.
func (s Spec) Normalized() (Spec, error) {
	if err := s.Validate(); err != nil {
		return Spec{}, err
	}
	p, err := partition.Canonical(s.Partition.Spec)
	if err != nil { // Validate parsed it already
		return Spec{}, invalid("partition.spec: %w", err)
	}
	s.Partition.Spec = p
	if s.Model != nil {
		s.Model = s.Model.normalized()
	}
	if s.Method == "fedlay" {
		s.Method = "" // the default, absent from the encoding: older specs keep their IDs
	}
	return s, nil
}

// Canonical returns the canonical encoding of s: the normalized spec as
// compact JSON with sorted keys. It fails if s is invalid.
func (s Spec) Canonical() ([]byte, error) {
	n, err := s.Normalized()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(n); err != nil {
		return nil, invalid("encode: %v", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// ID returns the task's ID, the SHA-256 of Canonical. It fails if s is
// invalid.
func (s Spec) ID() (ident.Task, error) {
	b, err := s.Canonical()
	if err != nil {
		return ident.Task{}, err
	}
	return sha256.Sum256(b), nil
}

// Parse decodes one JSON spec (any key order and spacing), refusing
// unknown fields, trailing data, other versions and invalid values, and
// returns it normalized.
func Parse(b []byte) (Spec, error) {
	if len(b) > MaxSpecSize {
		return Spec{}, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(b), MaxSpecSize)
	}
	// The version first, leniently: a future version may have other fields.
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return Spec{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if probe.Version == nil {
		return Spec{}, fmt.Errorf("%w: no version field", ErrVersion)
	}
	if err := checkVersion(*probe.Version); err != nil {
		return Spec{}, err
	}
	var s Spec
	if err := strictDecode(b, &s); err != nil {
		return Spec{}, err
	}
	return s.Normalized()
}

// ParseList decodes either one spec or a JSON array of specs (a task
// file), each as Parse does. Duplicate tasks (same ID) are refused.
func ParseList(b []byte) ([]Spec, error) {
	if len(b) > MaxSpecSize*MaxListLen {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(b), MaxSpecSize*MaxListLen)
	}
	trimmed := bytes.TrimLeft(b, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '[' {
		s, err := Parse(b)
		if err != nil {
			return nil, err
		}
		return []Spec{s}, nil
	}
	var raws []json.RawMessage
	if err := strictDecode(b, &raws); err != nil {
		return nil, err
	}
	if len(raws) == 0 || len(raws) > MaxListLen {
		return nil, fmt.Errorf("%w: %d specs, want 1 to %d", ErrInvalid, len(raws), MaxListLen)
	}
	specs := make([]Spec, 0, len(raws))
	seen := make(map[ident.Task]int, len(raws))
	for i, raw := range raws {
		s, err := Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("spec %d: %w", i, err)
		}
		id, err := s.ID()
		if err != nil {
			return nil, fmt.Errorf("spec %d: %w", i, err)
		}
		if j, dup := seen[id]; dup {
			return nil, fmt.Errorf("%w: spec %d is the same task as spec %d (%v)", ErrInvalid, i, j, id)
		}
		seen[id] = i
		specs = append(specs, s)
	}
	return specs, nil
}

// MaxListLen bounds the specs of one ParseList.
const MaxListLen = 64

// strictDecode decodes exactly one JSON value into v, refusing unknown
// fields and trailing data.
func strictDecode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: trailing data after the spec", ErrMalformed)
	}
	return nil
}
