package f32

import "sync/atomic"

// gemmCalls counts Gemm's matrix products, whatever kernel ran them.
var gemmCalls atomic.Uint64

// GemmCalls returns how many matrix products (Gemm calls with m, n > 0)
// this process, or this WebAssembly instance, has run: every training
// step, evaluation and calibration of a model does some, element-wise
// work (an aggregation, a check for non-finite values) none. A browser
// tab's page reads its own count to show that its thread trains nothing
// while the trainer worker does (wasm/trainerview.go).
func GemmCalls() uint64 { return gemmCalls.Load() }
