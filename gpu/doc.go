// Package gpu is the GPU companion's training backend: a cgo shim over
// libtorch's C++ API, behind the build tag `torch`, implementing the same
// training interface and flat parameter layout as the pure-Go engine (nn).
//
// The backend lands with the GPU companion work; without the tag the pure-Go
// engine is the only backend.
package gpu
