//go:build js

package f32

// Go-wasm is single-threaded: goroutines would only interleave.
func maxThreads() int { return 1 }
