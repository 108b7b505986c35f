package task

import (
	"encoding/hex"
	"fmt"

	"github.com/peerlearn/peerlearn/protocol/mep"
)

// ID names a task: the SHA-256 of its spec's canonical encoding (see
// Spec.ID). The zero ID names no task.
type ID [32]byte

// IsZero reports whether id is the zero ID.
func (id ID) IsZero() bool { return id == ID{} }

// String returns the first 16 hex digits, enough to tell tasks apart in
// logs and metric labels.
func (id ID) String() string { return hex.EncodeToString(id[:8]) }

// Hex returns all 64 lowercase hex digits.
func (id ID) Hex() string { return hex.EncodeToString(id[:]) }

// TaskHash returns id as the task hash MEP model headers carry.
func (id ID) TaskHash() mep.TaskHash { return mep.TaskHash(id) }

// FromTaskHash returns the ID a MEP task hash carries.
func FromTaskHash(h mep.TaskHash) ID { return ID(h) }

// Check returns nil if h names task id, else an error wrapping
// ErrMismatch: a model of another task must not be used.
func (id ID) Check(h mep.TaskHash) error {
	if ID(h) != id {
		return fmt.Errorf("%w: got %v, want %v", ErrMismatch, ID(h), id)
	}
	return nil
}

// ParseID reads the 64-hex-digit form written by Hex (either case).
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 2*len(id) {
		return ID{}, fmt.Errorf("%w: %d characters, want %d", ErrID, len(s), 2*len(id))
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return ID{}, fmt.Errorf("%w: %v", ErrID, err)
	}
	return id, nil
}

// MarshalText writes the 64-hex-digit form (JSON strings use it).
func (id ID) MarshalText() ([]byte, error) { return []byte(id.Hex()), nil }

// UnmarshalText reads the 64-hex-digit form.
func (id *ID) UnmarshalText(b []byte) error {
	v, err := ParseID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}
