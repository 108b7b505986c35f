package f32

// Gemm computes C = alpha*op(A)*op(B) + beta*C for row-major matrices,
// where op(X) is X or its transpose. op(A) is m×k, op(B) is k×n, C is m×n;
// lda, ldb, ldc are the row strides of the stored matrices.
//
// When beta is 0, C is overwritten without being read (so NaNs in stale
// buffers do not leak through).
func Gemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	parallelRows(m, n*k, func(r0, r1 int) {
		gemmRows(transA, transB, r0, r1, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	})
}

// gemmRows is the reference kernel over output rows [r0, r1).
func gemmRows(transA, transB bool, r0, r1, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	for i := r0; i < r1; i++ {
		ci := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(ci)
		} else if beta != 1 {
			for j := range ci {
				ci[j] *= beta
			}
		}
		if !transB {
			// ikj order: stream rows of B into the row of C.
			for p := 0; p < k; p++ {
				var av float32
				if transA {
					av = a[p*lda+i]
				} else {
					av = a[i*lda+p]
				}
				av *= alpha
				if av == 0 {
					continue
				}
				bp := b[p*ldb : p*ldb+n]
				for j, bv := range bp {
					ci[j] += av * bv
				}
			}
			continue
		}
		// B transposed: each C element is a dot product of two rows.
		for j := 0; j < n; j++ {
			bj := b[j*ldb : j*ldb+k]
			var s float32
			if transA {
				for p, bv := range bj {
					s += a[p*lda+i] * bv
				}
			} else {
				ai := a[i*lda : i*lda+k]
				for p, bv := range bj {
					s += ai[p] * bv
				}
			}
			ci[j] += alpha * s
		}
	}
}
