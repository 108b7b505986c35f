//go:build !torch

package gpu

import (
	"math/rand/v2"

	"github.com/peerlearn/peerlearn/engine/nn"
)

// Backend is the libtorch backend. This build has no libtorch (built
// without -tags torch): New returns ErrNotBuilt and every method fails.
type Backend struct{}

var _ nn.Backend = (*Backend)(nil)

// Available reports whether the package was built with libtorch: false.
func Available() bool { return false }

// CUDADevices returns 0: this build has no libtorch.
func CUDADevices() int { return 0 }

// Version returns "": this build has no libtorch.
func Version() string { return "" }

// Threads returns 0: this build has no libtorch.
func Threads() int { return 0 }

// New returns ErrNotBuilt: build with -tags torch for the libtorch backend.
func New(arch nn.Arch, opt nn.Optimizer, cfg Config) (*Backend, error) { return nil, ErrNotBuilt }

// Close does nothing.
func (b *Backend) Close() error { return nil }

// Device returns "".
func (b *Backend) Device() string { return "" }

// String returns "libtorch (not built)".
func (b *Backend) String() string { return "libtorch (not built)" }

// Arch returns the zero Arch.
func (b *Backend) Arch() nn.Arch { return nn.Arch{} }

// NumParams returns 0.
func (b *Backend) NumParams() int { return 0 }

// Params returns ErrNotBuilt.
func (b *Backend) Params([]float32) error { return ErrNotBuilt }

// SetParams returns ErrNotBuilt.
func (b *Backend) SetParams([]float32) error { return ErrNotBuilt }

// TrainBatch returns ErrNotBuilt.
func (b *Backend) TrainBatch([]float32, []int32) (float32, error) { return 0, ErrNotBuilt }

// Evaluate returns ErrNotBuilt.
func (b *Backend) Evaluate([]float32, []int32) (nn.Metrics, error) { return nn.Metrics{}, ErrNotBuilt }

// HessianDiag returns ErrNotBuilt.
func (b *Backend) HessianDiag([]float32, []int32, []float32) error { return ErrNotBuilt }

// ResetOptimizer does nothing.
func (b *Backend) ResetOptimizer() {}

// SetYield does nothing.
func (b *Backend) SetYield(func()) {}

// SetDropoutSource does nothing: there is no model.
func (b *Backend) SetDropoutSource(*rand.Rand) {}
