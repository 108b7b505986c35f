// Package f32 holds the float32 kernels every PeerLearn model runs on:
// row-major GEMM and a few vector operations.
//
// The pure-Go kernels are the reference and the only ones used under
// GOOS=js (Go cannot emit wasm SIMD): blocked ikj loops and in-order dot
// products, every product and sum rounded to float32, so they give the
// same bits natively (with SetAccelerated(false)) and in wasm; a golden
// test pins them.
//
// On amd64 with AVX2 and FMA (detected at init), Gemm, Dot and Axpy run
// assembly kernels instead: a 6×16 register-tiled GEMM micro-kernel with
// Goto-style packing and cache blocking, and a 3×4 dot-product kernel for
// A·Bᵀ with long rows. They round differently from the pure-Go kernels
// (fused multiply-adds, other summation orders); tests keep both within
// float32 error bounds of a float64 product.
//
// Results never depend on the number of threads: work is split by output
// rows or columns and every output element is accumulated in the same
// order whatever the split, so a seeded run gives the same bits on 1 or N
// cores.
package f32
