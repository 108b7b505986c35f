package server

import "errors"

// Errors returned by the package, wrapped with %w; test with errors.Is.
var (
	// ErrConfig: a configuration is invalid; the message names the field.
	ErrConfig = errors.New("signal server: invalid configuration")
	// ErrClosed: Serve after Shutdown.
	ErrClosed = errors.New("signal server: shut down")
)
