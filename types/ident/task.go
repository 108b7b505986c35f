package ident

import (
	"encoding/hex"
	"fmt"
)

// Task names a learning task: the SHA-256 of its spec's canonical encoding
// (protocol/task computes it). Model headers carry it so that a model of
// another task is never aggregated. The zero value names no task.
type Task [32]byte

// IsZero reports whether t is the zero ID.
func (t Task) IsZero() bool { return t == Task{} }

// String returns the first 16 hex digits, enough to tell tasks apart in
// logs and metric labels.
func (t Task) String() string { return hex.EncodeToString(t[:8]) }

// Hex returns all 64 lowercase hex digits.
func (t Task) Hex() string { return hex.EncodeToString(t[:]) }

// Check returns nil if got names task t, else an error wrapping
// ErrTaskMismatch: a model of another task must not be used.
func (t Task) Check(got Task) error {
	if got != t {
		return fmt.Errorf("%w: got %v, want %v", ErrTaskMismatch, got, t)
	}
	return nil
}

// ParseTask reads the 64-hex-digit form written by Hex (either case).
func ParseTask(s string) (Task, error) {
	var t Task
	if err := parseHex(t[:], s); err != nil {
		return Task{}, fmt.Errorf("%w: %v", ErrTask, err)
	}
	return t, nil
}

// MarshalText writes the 64-hex-digit form (JSON strings use it).
func (t Task) MarshalText() ([]byte, error) { return []byte(t.Hex()), nil }

// UnmarshalText reads the 64-hex-digit form.
func (t *Task) UnmarshalText(b []byte) error {
	v, err := ParseTask(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}
