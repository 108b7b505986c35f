package f32

import (
	"fmt"
	"sync"
)

// Gemm computes C = alpha*op(A)*op(B) + beta*C for row-major matrices,
// where op(X) is X or its transpose. op(A) is m×k, op(B) is k×n, C is m×n;
// lda, ldb, ldc are the row strides of the stored matrices.
//
// When beta is 0, C is overwritten without being read (so NaNs in stale
// buffers do not leak through). When alpha is 0 or k is 0, A and B are not
// read. The pure-Go kernel skips groups of zeros in op(A), so an Inf or NaN
// in B facing a zero of A may or may not reach C; nothing else depends on
// which kernel runs beyond float32 rounding.
//
// C must not overlap A or B; A and B may overlap each other. Gemm panics
// when a slice is too short or a stride too small for its matrix.
func Gemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("f32: Gemm with negative size m=%d n=%d k=%d", m, n, k))
	}
	gemmCalls.Add(1) // GemmCalls (gemmcount.go)
	checkMatrix("C", m, n, c, ldc)
	if alpha == 0 || k == 0 {
		scaleMatrix(m, n, beta, c, ldc)
		return
	}
	if transA {
		checkMatrix("A", k, m, a, lda)
	} else {
		checkMatrix("A", m, k, a, lda)
	}
	if transB {
		checkMatrix("B", n, k, b, ldb)
	} else {
		checkMatrix("B", k, n, b, ldb)
	}
	if accelerated.Load() && useAccel(m, n, k) {
		accelCalls.Add(1)
		gemmAccel(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	gemmRef(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// checkMatrix panics unless x holds a rows×cols matrix with row stride ld.
func checkMatrix(name string, rows, cols int, x []float32, ld int) {
	if rows == 0 || cols == 0 {
		return
	}
	if rows > 1 && ld < cols {
		panic(fmt.Sprintf("f32: Gemm: stride of %s is %d, less than its %d columns", name, ld, cols))
	}
	if need := (rows-1)*ld + cols; len(x) < need {
		panic(fmt.Sprintf("f32: Gemm: %s has %d elements, a %d×%d matrix with stride %d needs %d", name, len(x), rows, cols, ld, need))
	}
}

// scaleMatrix computes C = beta*C, clearing C when beta is 0.
func scaleMatrix(m, n int, beta float32, c []float32, ldc int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		ci := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(ci)
		} else {
			for j := range ci {
				ci[j] *= beta
			}
		}
	}
}

// Blocking of the pure-Go kernel: a refKC×refNC block of B (32 KiB) stays
// in L1 while pairs of C rows stream over it. Blocking does not change the
// result: every C element still accumulates p = 0..k-1 in order.
const (
	refKC = 64
	refNC = 128
)

// bufPool recycles scratch buffers (transposed or packed operands).
var bufPool sync.Pool

func getBuf(n int) *[]float32 {
	if p, ok := bufPool.Get().(*[]float32); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	s := make([]float32, n)
	return &s
}

func putBuf(p *[]float32) { bufPool.Put(p) }

// gemmRef is the pure-Go GEMM: the reference for every other kernel and the
// only one under GOOS=js. Every product and sum is rounded to float32 (no
// fused multiply-add), so it gives the same bits on every platform and for
// every thread count. For each C element it computes, in this order,
//
//	x = beta*C; for p = 0..k-1: x += float32(alpha*A[i,p]) * B[p,j]
//
// or, where refDot chooses dot products (A·Bᵀ with long rows),
//
//	s = 0; for p = 0..k-1: s += A[i,p] * B[p,j]; x = alpha*s + beta*C.
func gemmRef(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if refDot(transA, transB, m, n, k) {
		parallelRows(m, 2, n*k, func(r0, r1 int) {
			refRowsDot(r0, r1, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		})
		return
	}
	if transB {
		// Transpose B once (shared by all threads) so that the kernel
		// always streams rows of B into rows of C.
		bt := getBuf(k * n)
		defer putBuf(bt)
		t := *bt
		for j := 0; j < n; j++ {
			bj := b[j*ldb : j*ldb+k]
			for p, v := range bj {
				t[p*n+j] = v
			}
		}
		b, ldb = t, n
	}
	// Rows go to threads in pairs so that the kernel's row pairs (and so
	// its zero skipping) do not depend on the split.
	parallelRows(m, 2, n*k, func(r0, r1 int) {
		refRows(transA, r0, r1, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	})
}

// refDot says whether the pure-Go kernel computes C = A·Bᵀ as dot products
// of rows of A and rows of B (stored n×k) rather than transposing B: where
// the rows of C are short (the ikj loop would be all overhead) or Bᵀ would
// not stay in cache. Measured under node, either is at most ~20% faster
// than the other elsewhere; dot products are 1.7x faster for a
// convolution's weight gradient (8×9, k = 50176).
func refDot(transA, transB bool, m, n, k int) bool {
	return !transA && transB && (n < 32 || k*n > 1<<18)
}

// refRowsDot computes rows [r0, r1) of C = alpha*A*Bᵀ + beta*C, A stored
// m×k and B stored n×k, two rows by four columns of dot products at a time.
func refRowsDot(r0, r1, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	put := func(i, j int, s float32) {
		x := float32(alpha * s)
		if beta != 0 {
			x += float32(beta * c[i*ldc+j])
		}
		c[i*ldc+j] = x
	}
	i := r0
	for ; i+2 <= r1; i += 2 {
		a0 := a[i*lda : i*lda+k]
		a1 := a[(i+1)*lda : (i+1)*lda+k]
		j := 0
		for ; j+4 <= n; j += 4 {
			s00, s01, s02, s03, s10, s11, s12, s13 := dot2x4(a0, a1,
				b[j*ldb:j*ldb+k], b[(j+1)*ldb:(j+1)*ldb+k], b[(j+2)*ldb:(j+2)*ldb+k], b[(j+3)*ldb:(j+3)*ldb+k])
			put(i, j, s00)
			put(i, j+1, s01)
			put(i, j+2, s02)
			put(i, j+3, s03)
			put(i+1, j, s10)
			put(i+1, j+1, s11)
			put(i+1, j+2, s12)
			put(i+1, j+3, s13)
		}
		for ; j < n; j++ {
			bj := b[j*ldb : j*ldb+k]
			put(i, j, dotSeq(a0, bj))
			put(i+1, j, dotSeq(a1, bj))
		}
	}
	if i < r1 {
		ai := a[i*lda : i*lda+k]
		for j := 0; j < n; j++ {
			put(i, j, dotSeq(ai, b[j*ldb:j*ldb+k]))
		}
	}
}

// dot2x4 returns the eight dot products of a0, a1 with b0..b3, each summed
// in order like dotSeq.
func dot2x4(a0, a1, b0, b1, b2, b3 []float32) (s00, s01, s02, s03, s10, s11, s12, s13 float32) {
	a1 = a1[:len(a0)]
	b0 = b0[:len(a0)]
	b1 = b1[:len(a0)]
	b2 = b2[:len(a0)]
	b3 = b3[:len(a0)]
	for p, x0 := range a0 {
		x1 := a1[p]
		v0, v1, v2, v3 := b0[p], b1[p], b2[p], b3[p]
		s00 += float32(x0 * v0)
		s01 += float32(x0 * v1)
		s02 += float32(x0 * v2)
		s03 += float32(x0 * v3)
		s10 += float32(x1 * v0)
		s11 += float32(x1 * v1)
		s12 += float32(x1 * v2)
		s13 += float32(x1 * v3)
	}
	return
}

// dotSeq sums x[p]*y[p] in order, one rounding per product and per sum.
func dotSeq(x, y []float32) float32 {
	y = y[:len(x)]
	var s float32
	for p, v := range x {
		s += float32(v * y[p])
	}
	return s
}

// refRows computes rows [r0, r1) of C = alpha*op(A)*B + beta*C, B not
// transposed, in ikj order: two rows of C by four rows of B at a time.
func refRows(transA bool, r0, r1, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	scaleMatrix(r1-r0, n, beta, c[r0*ldc:], ldc)
	// A(i, p) with alpha folded in.
	at := func(i, p int) float32 {
		if transA {
			return alpha * a[p*lda+i]
		}
		return alpha * a[i*lda+p]
	}
	for jc := 0; jc < n; jc += refNC {
		nc := min(refNC, n-jc)
		for pc := 0; pc < k; pc += refKC {
			pe := min(pc+refKC, k)
			i := r0
			for ; i+2 <= r1; i += 2 {
				c0 := c[i*ldc+jc : i*ldc+jc+nc]
				c1 := c[(i+1)*ldc+jc : (i+1)*ldc+jc+nc]
				p := pc
				for ; p+4 <= pe; p += 4 {
					a00, a01, a02, a03 := at(i, p), at(i, p+1), at(i, p+2), at(i, p+3)
					a10, a11, a12, a13 := at(i+1, p), at(i+1, p+1), at(i+1, p+2), at(i+1, p+3)
					if a00 == 0 && a01 == 0 && a02 == 0 && a03 == 0 && a10 == 0 && a11 == 0 && a12 == 0 && a13 == 0 {
						continue
					}
					o := p*ldb + jc
					kern2x4(c0, c1, b[o:o+nc], b[o+ldb:o+ldb+nc], b[o+2*ldb:o+2*ldb+nc], b[o+3*ldb:o+3*ldb+nc],
						a00, a01, a02, a03, a10, a11, a12, a13)
				}
				for ; p < pe; p++ {
					a0, a1 := at(i, p), at(i+1, p)
					if a0 == 0 && a1 == 0 {
						continue
					}
					o := p*ldb + jc
					kern2x1(c0, c1, b[o:o+nc], a0, a1)
				}
			}
			if i < r1 {
				c0 := c[i*ldc+jc : i*ldc+jc+nc]
				p := pc
				for ; p+4 <= pe; p += 4 {
					a0, a1, a2, a3 := at(i, p), at(i, p+1), at(i, p+2), at(i, p+3)
					if a0 == 0 && a1 == 0 && a2 == 0 && a3 == 0 {
						continue
					}
					o := p*ldb + jc
					kern1x4(c0, b[o:o+nc], b[o+ldb:o+ldb+nc], b[o+2*ldb:o+2*ldb+nc], b[o+3*ldb:o+3*ldb+nc], a0, a1, a2, a3)
				}
				for ; p < pe; p++ {
					if a0 := at(i, p); a0 != 0 {
						o := p*ldb + jc
						axpyRef(a0, b[o:o+nc], c0)
					}
				}
			}
		}
	}
}

// The kernels below add products one at a time in p order; the explicit
// float32 conversions forbid the compiler from fusing them into FMAs, so
// the result is the same on every architecture.

func kern2x4(c0, c1, b0, b1, b2, b3 []float32, a00, a01, a02, a03, a10, a11, a12, a13 float32) {
	c1 = c1[:len(c0)]
	b0 = b0[:len(c0)]
	b1 = b1[:len(c0)]
	b2 = b2[:len(c0)]
	b3 = b3[:len(c0)]
	for j := range c0 {
		v0, v1, v2, v3 := b0[j], b1[j], b2[j], b3[j]
		x := c0[j]
		x += float32(a00 * v0)
		x += float32(a01 * v1)
		x += float32(a02 * v2)
		x += float32(a03 * v3)
		c0[j] = x
		y := c1[j]
		y += float32(a10 * v0)
		y += float32(a11 * v1)
		y += float32(a12 * v2)
		y += float32(a13 * v3)
		c1[j] = y
	}
}

func kern2x1(c0, c1, b0 []float32, a0, a1 float32) {
	c1 = c1[:len(c0)]
	b0 = b0[:len(c0)]
	for j, v := range b0 {
		c0[j] += float32(a0 * v)
		c1[j] += float32(a1 * v)
	}
}

func kern1x4(c0, b0, b1, b2, b3 []float32, a0, a1, a2, a3 float32) {
	b0 = b0[:len(c0)]
	b1 = b1[:len(c0)]
	b2 = b2[:len(c0)]
	b3 = b3[:len(c0)]
	for j := range c0 {
		x := c0[j]
		x += float32(a0 * b0[j])
		x += float32(a1 * b1[j])
		x += float32(a2 * b2[j])
		x += float32(a3 * b3[j])
		c0[j] = x
	}
}
