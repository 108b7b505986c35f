package gpu

import "errors"

// Sentinel errors, wrapped with %w; test with errors.Is. Bad input (shapes,
// labels, non-finite values, architectures, options) wraps nn's sentinels
// instead, as the pure-Go backend does.
var (
	// ErrNotBuilt: the package was built without the torch tag.
	ErrNotBuilt = errors.New("gpu: built without -tags torch; the pure-Go engine is the default")
	// ErrDevice: the requested device (CUDA) is not available in this
	// libtorch or on this machine.
	ErrDevice = errors.New("gpu: device not available")
	// ErrTorch: libtorch threw an exception (out of memory, an internal
	// error), caught at the C boundary.
	ErrTorch = errors.New("gpu: libtorch error")
	// ErrClosed: the Backend was used after Close.
	ErrClosed = errors.New("gpu: backend closed")
)
