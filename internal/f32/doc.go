// Package f32 holds the float32 kernels every PeerLearn model runs on:
// row-major GEMM and a few vector operations.
//
// The pure-Go kernels are the reference: blocked ikj loops and in-order
// dot products, every product and sum rounded to float32, so they give
// the same bits natively (with SetAccelerated(false)) and in wasm; a
// golden test pins them.
//
// On amd64 with AVX2 and FMA (detected at init), Gemm, Dot and Axpy run
// assembly kernels instead: a 6×16 register-tiled GEMM micro-kernel with
// Goto-style packing and cache blocking, and a 3×4 dot-product kernel for
// A·Bᵀ with long rows. They round differently from the pure-Go kernels
// (fused multiply-adds, other summation orders); tests keep both within
// float32 error bounds of a float64 product.
//
// Under GOOS=js (a browser, node), where Go's compiler emits no SIMD, Gemm
// calls a WebAssembly SIMD128 module instead (simd_js.go), one syscall/js
// call per product: the module is emitted by package simd128 at start-up,
// validated by the host (which rejects it without SIMD128) and
// instantiated over the Go instance's own memory, so it reads and writes
// the slices in place. Where any of that fails the pure-Go kernels run and
// AccelError says why; Kernels names what runs ("simd128" or "go"). It sums
// in another order than the pure-Go kernel (products from zero per
// 4×8 tile, then added to C); tests keep it within 1e-5 of it, relative
// to the magnitudes summed. The module also runs nn's element-wise loops
// over long vectors (ReLU, ReLUGrad, Sum, FirstNonFinite, AddStrided and
// CopyStrided for im2col/col2im, SGDUpdate); all but Sum give the pure-Go
// bits. wasip1 keeps the pure-Go kernels.
//
// Results never depend on the number of threads: work is split by output
// rows or columns and every output element is accumulated in the same
// order whatever the split, so a seeded run gives the same bits on 1 or N
// cores.
package f32
