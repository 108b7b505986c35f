// Package f32 holds the float32 kernels every PeerLearn model runs on:
// row-major GEMM and a few vector operations.
//
// The pure-Go kernels are the reference and the only ones used under
// GOOS=js (wasm has no SIMD we can reach from Go). Architecture-specific
// kernels may replace them at init; tests keep both in agreement.
//
// Results never depend on the number of threads: work is split by output
// rows and every output element is accumulated in the same order whatever
// the split, so a seeded run gives the same bits on 1 or N cores.
package f32
