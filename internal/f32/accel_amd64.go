package f32

import "golang.org/x/sys/cpu"

// hasAccel reports whether this CPU runs the AVX2+FMA kernels (the
// operating system's support for the YMM state included: x/sys/cpu checks
// it).
var hasAccel = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// Assembly kernels (kernel_amd64.s, vec_amd64.s).

// kern6x16 computes the 6×16 tile acc = sum over p < k of a[6p+i]*b[16p+j]
// (fused multiply-adds in p order) and stores it to C (row stride ldc
// elements) as C = acc when loadc is 0, else C = acc + float32(beta*C).
//
//go:noescape
func kern6x16(k int, a, b, c *float32, ldc int, beta float32, loadc int)

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
