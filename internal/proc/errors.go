package proc

import "errors"

var (
	// ErrExited: the child exited before printing its first line.
	ErrExited = errors.New("exited at start")
	// ErrNoLine: the child printed no line in time.
	ErrNoLine = errors.New("printed nothing")
)
