//go:build js && wasm

package f32

import (
	"runtime"
	"unsafe"

	"github.com/peerlearn/peerlearn/internal/f32/simd128"
)

// hasAccel reports whether the WebAssembly SIMD128 GEMM (simd_js.go) is
// running: set up before any init function reads it.
var hasAccel = setupSIMD()

// accelName names the accelerated kernels.
const accelName = "simd128"

// simdMinWork is the multiply-add count below which the pure-Go kernel
// beats a call into the SIMD module (whose fixed cost is the syscall/js
// call, some microseconds; see BenchmarkGemmCallJS).
const simdMinWork = 2048

func useAccel(m, n, k int) bool { return m*n*k >= simdMinWork }

// gemmAccel runs C = alpha*op(A)*op(B) + beta*C in the SIMD module, one
// call per product: beta is applied here (the module adds to C), and the
// module reads the operands in place through their addresses in linear
// memory (Go's heap does not move; KeepAlive holds them past the call).
// The caller has checked every size and stride.
func gemmAccel(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	scaleMatrix(m, n, beta, c, ldc)
	sai, sap := 4*lda, 4
	if transA {
		sai, sap = 4, 4*lda
	}
	sbj, sbp := 4, 4*ldb
	if transB {
		sbj, sbp = 4*ldb, 4
	}
	sp := getBuf(simd128.ScratchFloats(m, k))
	scratch := *sp
	simdGemm.Invoke(m, n, k, alpha, addr(a), sai, sap, addr(b), sbj, sbp, addr(c), 4*ldc, addr(scratch))
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	runtime.KeepAlive(c)
	runtime.KeepAlive(scratch)
	putBuf(sp)
}

// addr is the address of x[0] in linear memory.
func addr(x []float32) int { return int(uintptr(unsafe.Pointer(unsafe.SliceData(x)))) }

// The vector operations stay in Go: nn calls them on short rows, where a
// call into the module would cost more than it saves.

func dotAccel(x, y []float32) float32 { return dotRef(x, y) }

func axpyAccel(alpha float32, x, y []float32) { axpyRef(alpha, x, y) }

func scaleAccel(alpha float32, x []float32) { scaleRef(alpha, x) }

// simdMinVec is the length below which element-wise kernels stay in Go:
// a call into the module costs about as much as a few hundred elements.
const simdMinVec = 512

func reluAccel(x, y []float32) int {
	n := len(x) &^ 3
	if n < simdMinVec {
		return 0
	}
	simdRelu.Invoke(addr(x), addr(y), n)
	runtime.KeepAlive(x)
	runtime.KeepAlive(y)
	return n
}

func reluGradAccel(y, dy, dx []float32) int {
	n := len(y) &^ 3
	if n < simdMinVec {
		return 0
	}
	simdReluGrad.Invoke(addr(y), addr(dy), addr(dx), n)
	runtime.KeepAlive(y)
	runtime.KeepAlive(dy)
	runtime.KeepAlive(dx)
	return n
}

func sumAccel(x []float32) (float32, int) {
	n := len(x) &^ 15
	if n < simdMinVec {
		return 0, 0
	}
	s := float32(simdSum.Invoke(addr(x), n).Float())
	runtime.KeepAlive(x)
	return s, n
}

func nonFiniteAccel(x []float32) int {
	n := len(x) &^ 3
	if n < simdMinVec {
		return 0
	}
	i := simdNonFinite.Invoke(addr(x), n).Int()
	runtime.KeepAlive(x)
	return i
}

// stridedAccel runs AddStrided or CopyStrided in the module once the
// caller has checked the bounds; small ones stay in Go.
func stridedAccel(add bool, dst, src []float32, n, dn, sn, rows, dr, sr, width int) bool {
	if n*rows*width < simdMinVec {
		return false
	}
	fn := simdCopyStrided
	if add {
		fn = simdAddStrided
	}
	fn.Invoke(addr(src), addr(dst), n, 4*sn, 4*dn, rows, 4*sr, 4*dr, width)
	runtime.KeepAlive(src)
	runtime.KeepAlive(dst)
	return true
}

func sgdAccel(params, grads, vel []float32, lr, mu, wd float32, nesterov bool) int {
	n := len(params) &^ 3
	if n < simdMinVec {
		return 0
	}
	mode, v := 0, 0
	if vel != nil {
		mode, v = 1, addr(vel)
		if nesterov {
			mode = 2
		}
	}
	simdSGD.Invoke(addr(params), addr(grads), v, n, lr, mu, wd, mode)
	runtime.KeepAlive(params)
	runtime.KeepAlive(grads)
	runtime.KeepAlive(vel)
	return n
}
