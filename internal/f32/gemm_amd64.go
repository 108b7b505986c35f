package f32

import "sync"

// The AVX2+FMA GEMM: Goto/BLIS-style blocking around the 6×16 assembly
// micro-kernels. For each block of nc columns and kc of the k dimension, B
// is packed once into 16-column slivers (shared read-only by all threads);
// each thread packs its own mc×kc blocks of alpha*op(A) into 6-row slivers
// and runs the micro-kernel over them. Where packing costs more than it
// saves, the kernels read an operand in place instead: A when alpha is 1
// (packing would only copy it), B when it is not transposed and the whole
// of op(A) is one mc block (each sliver is then used by few tiles). Only
// the partial edge slivers are still packed (zero-padded).
//
// Every C element is computed as: per kc block, a fused multiply-add chain
// over p in order starting from zero, then C = acc + float32(beta*C) for
// the first block (C = acc when beta is 0) and C = acc + C for the others.
// Block sizes depend only on the shape; packed and in-place operands hold
// the same values (packing multiplies by alpha only when alpha is not 1);
// edge tiles, computed into a scratch tile, are combined with C exactly as
// the assembly does. So the result does not depend on the number of
// threads, on how they split the work, or on what was packed.
//
// A·Bᵀ with few outputs and long rows (a convolution's weight gradient)
// goes to gemmDotNT instead.
const (
	accMR = 6
	accNR = 16
	accKC = 256     // a kc×16 sliver of B (16 KiB) stays in L1
	accMC = 16 * 6  // an mc×kc block of A (96 KiB) stays in L2
	accNC = 64 * 16 // a kc×nc block of B (1 MiB) stays in L2
)

// useAccel says whether the assembly kernels beat the pure-Go one on a
// problem this size; below, packing and call overheads dominate (measured:
// the pure-Go kernel wins up to m·n·k ≈ 512, the assembly from ≈ 1000 in
// most shapes and by 2-3.5x at 4096).
func useAccel(m, n, k int) bool {
	return m*n*k >= 4096
}

// useDotNT says whether C = A·Bᵀ goes to gemmDotNT.
func useDotNT(transA, transB bool, m, n, k int) bool {
	return !transA && transB && m*n <= 4096 && k >= 256
}

// packPool recycles per-thread A blocks.
var packPool = sync.Pool{New: func() any {
	s := make([]float32, accMC*accKC)
	return &s
}}

func gemmAccel(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if useDotNT(transA, transB, m, n, k) {
		gemmDotNT(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	// Balanced kc blocks, a multiple of 4 where possible.
	kb := (k + accKC - 1) / accKC
	kc := (k + kb - 1) / kb
	kc = min((kc+3)&^3, accKC)

	directA := accDirect && alpha == 1
	directB := accDirect && !transB && m <= accMC
	mt := (m + accMR - 1) / accMR // row tiles
	for jc := 0; jc < n; jc += accNC {
		nc := min(accNC, n-jc)
		nt := (nc + accNR - 1) / accNR // column slivers
		bp := getBuf(nt * accNR * kc)
		for pc := 0; pc < k; pc += kc {
			kcur := min(kc, k-pc)
			var bop operand
			if directB {
				bop = operand{in: b[pc*ldb+jc:], ld: ldb}
				if full := nc &^ (accNR - 1); full < nc {
					bop.edge = (*bp)[:accNR*kcur]
					packB(transB, b, ldb, pc, kcur, jc+full, nc-full, bop.edge)
				}
			} else {
				bop = operand{packed: *bp}
				packB(transB, b, ldb, pc, kcur, jc, nc, *bp)
			}
			loadc, bet := 1, float32(1)
			if pc == 0 {
				bet = beta
				if beta == 0 {
					loadc = 0
				}
			}
			block := func(i0, i1, s0, s1 int) {
				ap := packPool.Get().(*[]float32)
				for ic := i0; ic < i1; ic += accMC {
					mc := min(accMC, i1-ic)
					var aop operand
					if directA {
						if transA {
							aop = operand{in: a[pc*lda+ic:], ld: lda}
						} else {
							aop = operand{in: a[ic*lda+pc:], ld: lda}
						}
						if full := mc - mc%accMR; full < mc {
							aop.edge = (*ap)[:accMR*kcur]
							packA(transA, a, lda, alpha, ic+full, mc-full, pc, kcur, aop.edge)
						}
					} else {
						aop = operand{packed: *ap}
						packA(transA, a, lda, alpha, ic, mc, pc, kcur, *ap)
					}
					macroKernel(transA, mc, kcur, aop, bop, s0, s1, nc, c[ic*ldc+jc:], ldc, bet, loadc)
				}
				packPool.Put(ap)
			}
			// Split rows in multiples of the tile height when there are
			// enough, else column slivers.
			if mt >= 2*nt || mt >= 8 {
				parallelRows(m, accMR, nc*kcur, func(i0, i1 int) { block(i0, i1, 0, nt) })
			} else {
				parallelRows(nt, 1, m*accNR*kcur, func(s0, s1 int) { block(0, m, s0, s1) })
			}
		}
		putBuf(bp)
	}
}

// operand is one kc-block of A or B for macroKernel: either packed into
// slivers, or in place (in, from the block's first element, row stride ld)
// with its partial last sliver packed into edge.
type operand struct {
	packed []float32
	in     []float32
	ld     int
	edge   []float32
}

// macroKernel runs the micro-kernel over an mc×kc block of A and the
// column slivers [s0, s1) of an nc×kc block of B into c, which starts at
// the block's first element.
func macroKernel(transA bool, mc, kc int, aop, bop operand, s0, s1, nc int, c []float32, ldc int, beta float32, loadc int) {
	var tile [accMR * accNR]float32
	for s := s0; s < s1; s++ {
		j := s * accNR
		nr := min(accNR, nc-j)
		var bptr *float32
		bs := accNR
		switch {
		case bop.packed != nil:
			bptr = &bop.packed[j*kc]
		case nr < accNR:
			bptr = &bop.edge[0]
		default:
			bptr, bs = &bop.in[j], bop.ld
		}
		for i := 0; i < mc; i += accMR {
			mr := min(accMR, mc-i)
			cp, ld, lc := &c[i*ldc+j], ldc, loadc
			if mr < accMR || nr < accNR {
				cp, ld, lc = &tile[0], accNR, 0
			}
			switch {
			case aop.packed != nil:
				kern6x16(kc, &aop.packed[i*kc], accMR, bptr, bs, cp, ld, beta, lc)
			case mr < accMR:
				kern6x16(kc, &aop.edge[0], accMR, bptr, bs, cp, ld, beta, lc)
			case transA:
				kern6x16(kc, &aop.in[i], aop.ld, bptr, bs, cp, ld, beta, lc)
			default:
				kern6x16r(kc, &aop.in[i*aop.ld], aop.ld, bptr, bs, cp, ld, beta, lc)
			}
			if cp != &tile[0] {
				continue
			}
			for ii := 0; ii < mr; ii++ {
				ci := c[(i+ii)*ldc+j : (i+ii)*ldc+j+nr]
				ti := tile[ii*accNR : ii*accNR+nr]
				if loadc == 0 {
					copy(ci, ti)
					continue
				}
				for jj, t := range ti {
					ci[jj] = t + float32(beta*ci[jj])
				}
			}
		}
	}
}

// packB copies rows [pc, pc+kc) and columns [jc, jc+nc) of op(B) into
// 16-column slivers: sliver s holds op(B)[pc+p][jc+16s+j] at dst[s*16*kc +
// 16p + j], zero-padded past nc.
func packB(transB bool, b []float32, ldb, pc, kc, jc, nc int, dst []float32) {
	for j0 := 0; j0 < nc; j0 += accNR {
		nr := min(accNR, nc-j0)
		d := dst[j0*kc : j0*kc+accNR*kc]
		if !transB {
			for p := 0; p < kc; p++ {
				row := b[(pc+p)*ldb+jc+j0:]
				dp := d[p*accNR : p*accNR+accNR]
				if nr == accNR {
					copy(dp, row[:accNR])
				} else {
					copy(dp, row[:nr])
					clear(dp[nr:])
				}
			}
			continue
		}
		// B stored n×k: column j of op(B) is row j of B.
		for jj := 0; jj < nr; jj++ {
			col := b[(jc+j0+jj)*ldb+pc : (jc+j0+jj)*ldb+pc+kc]
			for p, v := range col {
				d[p*accNR+jj] = v
			}
		}
		if nr < accNR {
			for p := 0; p < kc; p++ {
				clear(d[p*accNR+nr : p*accNR+accNR])
			}
		}
	}
}

// packA copies alpha times rows [ic, ic+mc) and columns [pc, pc+kc) of
// op(A) into 6-row slivers: sliver r holds alpha*op(A)[ic+6r+i][pc+p] at
// dst[r*6*kc + 6p + i], zero-padded past mc. Multiplying by alpha = 1 is
// exact, so a packed A holds the same values as A in place.
func packA(transA bool, a []float32, lda int, alpha float32, ic, mc, pc, kc int, dst []float32) {
	for i0 := 0; i0 < mc; i0 += accMR {
		mr := min(accMR, mc-i0)
		d := dst[i0*kc : i0*kc+accMR*kc]
		if transA {
			// A stored k×m: row p of A holds column p of op(A).
			for p := 0; p < kc; p++ {
				row := a[(pc+p)*lda+ic+i0:]
				dp := d[p*accMR : p*accMR+accMR]
				if mr == accMR {
					row = row[:accMR]
					dp[0] = alpha * row[0]
					dp[1] = alpha * row[1]
					dp[2] = alpha * row[2]
					dp[3] = alpha * row[3]
					dp[4] = alpha * row[4]
					dp[5] = alpha * row[5]
					continue
				}
				for i := 0; i < mr; i++ {
					dp[i] = alpha * row[i]
				}
				clear(dp[mr:])
			}
			continue
		}
		for i := 0; i < mr; i++ {
			row := a[(ic+i0+i)*lda+pc : (ic+i0+i)*lda+pc+kc]
			for p, v := range row {
				d[p*accMR+i] = alpha * v
			}
		}
		if mr < accMR {
			for p := 0; p < kc; p++ {
				clear(d[p*accMR+mr : p*accMR+accMR])
			}
		}
	}
}

// Blocking of gemmDotNT: a dotKC-long stretch of every row of A and B in
// play stays in L2 while the 3×4 tiles sweep it.
const dotKC = 512

// gemmDotNT computes C = alpha*A·Bᵀ + beta*C, A stored m×k and B n×k, as
// dot products of rows: dot3x4 over k in dotKC stretches (the vector part,
// k rounded down to a multiple of 8), the stretches summed in order from
// zero, then the last k mod 8 products added one at a time in order, then
// C = float32(alpha*s) + float32(beta*C) (just alpha*s when beta is 0).
// Every element gets the same sequence whatever its tile or thread.
func gemmDotNT(m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	k8 := k &^ 7
	accp := getBuf(m * n)
	defer putBuf(accp)
	acc := *accp
	clear(acc)
	row := func(x []float32, ld, i, last int) *float32 {
		return &x[min(i, last)*ld] // rows past the edge repeat the last one
	}
	work := func(r0, r1, j0, j1 int) {
		var out [12]float32
		for pc := 0; pc < k8; pc += dotKC {
			kcur := min(dotKC, k8-pc)
			ap, bq := a[pc:], b[pc:]
			for i := r0; i < r1; i += 3 {
				a0, a1, a2 := row(ap, lda, i, r1-1), row(ap, lda, i+1, r1-1), row(ap, lda, i+2, r1-1)
				for j := j0; j < j1; j += 4 {
					dot3x4(kcur, a0, a1, a2,
						row(bq, ldb, j, j1-1), row(bq, ldb, j+1, j1-1), row(bq, ldb, j+2, j1-1), row(bq, ldb, j+3, j1-1),
						&out[0])
					for ii := 0; ii < min(3, r1-i); ii++ {
						dst := acc[(i+ii)*n+j : (i+ii)*n+min(j+4, j1)]
						for jj := range dst {
							dst[jj] += out[ii*4+jj]
						}
					}
				}
			}
		}
		for i := r0; i < r1; i++ {
			ai := a[i*lda : i*lda+k]
			for j := j0; j < j1; j++ {
				bj := b[j*ldb : j*ldb+k]
				s := acc[i*n+j]
				for p := k8; p < k; p++ {
					s += float32(ai[p] * bj[p])
				}
				x := float32(alpha * s)
				if beta != 0 {
					x += float32(beta * c[i*ldc+j])
				}
				c[i*ldc+j] = x
			}
		}
	}
	if m >= n {
		parallelRows(m, 3, n*k, func(r0, r1 int) { work(r0, r1, 0, n) })
	} else {
		parallelRows(n, 4, m*k, func(j0, j1 int) { work(0, m, j0, j1) })
	}
}
