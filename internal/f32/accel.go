package f32

import "sync/atomic"

// accelerated selects architecture-specific kernels where this build has
// them (see hasAccel); off, every kernel runs the pure-Go reference, which
// gives the same bits as the GOOS=js build.
var accelerated atomic.Bool

func init() { accelerated.Store(hasAccel) }

// SetAccelerated turns the architecture-specific kernels on or off and
// returns the previous setting. Turning them on where this build or CPU has
// none leaves the pure-Go kernels in place.
func SetAccelerated(on bool) bool { return accelerated.Swap(on && hasAccel) }

// Accelerated reports whether architecture-specific kernels are in use.
func Accelerated() bool { return accelerated.Load() }

// accelCalls counts the kernel calls that took the accelerated path, so
// tests can check that a path they mean to compare really ran.
var accelCalls atomic.Uint64

// AccelCalls returns how many kernel calls have run accelerated kernels
// (Gemm products, and element-wise calls that handed work to them).
func AccelCalls() uint64 { return accelCalls.Load() }

// accDirect lets the accelerated GEMM read operands in place instead of
// packing them; tests and benchmarks turn it off to check that the result
// does not change and to measure what it saves.
var accDirect = true

// Kernels names the kernels Gemm runs now: "go" for the pure-Go ones,
// else the accelerated ones ("avx2+fma" on amd64, "simd128" in a browser
// or node), so a page or a benchmark can say which path it measured.
func Kernels() string {
	if Accelerated() {
		return accelName
	}
	return "go"
}
