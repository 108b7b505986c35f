package ident

import "errors"

var (
	// ErrPeer: a peer ID that is not 64 hex digits.
	ErrPeer = errors.New("ident: bad peer ID")
	// ErrTask: a task ID that is not 64 hex digits.
	ErrTask = errors.New("ident: bad task ID")
	// ErrTaskMismatch: a message or model of another task.
	ErrTaskMismatch = errors.New("ident: task mismatch")
)
