package f32

import (
	"errors"

	"golang.org/x/sys/cpu"
)

// hasAccel reports whether this CPU runs the AVX2+FMA kernels (the
// operating system's support for the YMM state included: x/sys/cpu checks
// it).
var hasAccel = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// accelName names the accelerated kernels.
const accelName = "avx2+fma"

// AccelError says why the accelerated kernels are not available on this
// CPU (nil when they are).
func AccelError() error {
	if !hasAccel {
		return errors.New("f32: this CPU lacks AVX2 or FMA")
	}
	return nil
}

// Assembly kernels (kernel_amd64.s, vec_amd64.s).

// kern6x16 computes the 6×16 tile acc = sum over p < k of A(i,p)*B(p,j),
// with A(i,p) = a[i + p*as] and B(p,j) = b[j + p*bs] (fused multiply-adds
// in p order, from zero), and stores it to C (row stride ldc elements) as
// C = acc when loadc is 0, else C = acc + float32(beta*C).
//
//go:noescape
func kern6x16(k int, a *float32, as int, b *float32, bs int, c *float32, ldc int, beta float32, loadc int)

// kern6x16r is kern6x16 with A(i,p) = a[i*lda + p].
//
//go:noescape
func kern6x16r(k int, a *float32, lda int, b *float32, bs int, c *float32, ldc int, beta float32, loadc int)

// dot3x4 sets out[4i+j] to the dot product of a_i[:k] and b_j[:k], k a
// multiple of 8, accumulated in 8 lanes (lane l takes p ≡ l mod 8, fused
// multiply-adds in p order) then summed across lanes in a fixed order.
//
//go:noescape
func dot3x4(k int, a0, a1, a2, b0, b1, b2, b3, out *float32)

//go:noescape
func dotAVX2(x, y *float32, n int) float32

//go:noescape
func axpyAVX2(alpha float32, x, y *float32, n int)

//go:noescape
func scaleAVX2(alpha float32, x *float32, n int)

func dotAccel(x, y []float32) float32 {
	if len(x) == 0 {
		return 0
	}
	return dotAVX2(&x[0], &y[0], len(x))
}

func axpyAccel(alpha float32, x, y []float32) {
	if len(x) == 0 {
		return
	}
	axpyAVX2(alpha, &x[0], &y[0], len(x))
}

func scaleAccel(alpha float32, x []float32) {
	if len(x) == 0 {
		return
	}
	scaleAVX2(alpha, &x[0], len(x))
}

// No vector kernels beyond Dot, Axpy and Scale here: the pure-Go loops
// do every element.

func reluAccel(x, y []float32) int          { return 0 }
func reluGradAccel(y, dy, dx []float32) int { return 0 }
func sumAccel(x []float32) (float32, int)   { return 0, 0 }
func nonFiniteAccel(x []float32) int        { return 0 }
func stridedAccel(add bool, dst, src []float32, n, dn, sn, rows, dr, sr, width int) bool {
	return false
}

func sgdAccel(params, grads, vel []float32, lr, mu, wd float32, nesterov bool) int { return 0 }
