package f32

import "sync"

// The AVX2+FMA GEMM: Goto/BLIS-style blocking around the 6×16 assembly
// micro-kernel kern6x16. For each block of nc columns and kc of the k
// dimension, B is packed once into 16-column slivers (shared read-only by
// all threads); each thread packs its own mc×kc blocks of alpha*A into
// 6-row slivers and runs the micro-kernel over them.
//
// Every C element is computed as: per kc block, a fused multiply-add chain
// over p in order starting from zero, then C = acc + float32(beta*C) for
// the first block (C = acc when beta is 0) and C = acc + C for the others.
// Block sizes depend only on the shape, and edge tiles (computed into a
// scratch tile) are combined with C exactly as the assembly does, so the
// result does not depend on the number of threads or on how they split
// the work.
const (
	accMR = 6
	accNR = 16
	accKC = 256      // a kc×16 sliver of B (16 KiB) stays in L1
	accMC = 16 * 6   // an mc×kc block of A (96 KiB) stays in L2
	accNC = 128 * 16 // a kc×nc block of B (2 MiB) stays in L2/L3
)

// useAccel says whether the assembly kernel beats the pure-Go one on a
// problem this size; below, packing and call overheads dominate.
func useAccel(m, n, k int) bool {
	return m*n*k >= 4096 && n >= 4
}

// packPool recycles per-thread A blocks.
var packPool = sync.Pool{New: func() any {
	s := make([]float32, accMC*accKC)
	return &s
}}

func gemmAccel(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	// Balanced kc blocks, a multiple of 4 where possible.
	kb := (k + accKC - 1) / accKC
	kc := (k + kb - 1) / kb
	kc = min((kc+3)&^3, accKC)

	mt := (m + accMR - 1) / accMR // row tiles
	for jc := 0; jc < n; jc += accNC {
		nc := min(accNC, n-jc)
		nt := (nc + accNR - 1) / accNR // column slivers
		bp := getBuf(nt * accNR * kc)
		for pc := 0; pc < k; pc += kc {
			kcur := min(kc, k-pc)
			packB(transB, b, ldb, pc, kcur, jc, nc, *bp)
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
					packA(transA, a, lda, alpha, ic, mc, pc, kcur, *ap)
					macroKernel(mc, kcur, *ap, (*bp)[s0*accNR*kcur:], s0, s1, jc, nc, c[ic*ldc:], ldc, bet, loadc)
				}
				packPool.Put(ap)
			}
			// Split rows in multiples of the tile height when there are
			// enough, else column slivers.
			work := m * nc * kcur
			if mt >= 2*nt || mt >= 8 {
				parallelRows(m, accMR, nc*kcur, func(i0, i1 int) { block(i0, i1, 0, nt) })
			} else {
				parallelRows(nt, 1, work/nt, func(s0, s1 int) { block(0, m, s0, s1) })
			}
		}
		putBuf(bp)
	}
}

// macroKernel runs the micro-kernel over an mc×kc block of packed A and
// the column slivers [s0, s1) of packed B (bp starts at sliver s0); c
// starts at the block's first row, column 0.
func macroKernel(mc, kc int, ap, bp []float32, s0, s1, jc, nc int, c []float32, ldc int, beta float32, loadc int) {
	var tile [accMR * accNR]float32
	for s := s0; s < s1; s++ {
		j := s * accNR
		nr := min(accNR, nc-j)
		bs := bp[(s-s0)*accNR*kc:]
		for i := 0; i < mc; i += accMR {
			mr := min(accMR, mc-i)
			as := ap[i*kc:]
			if mr == accMR && nr == accNR {
				kern6x16(kc, &as[0], &bs[0], &c[i*ldc+jc+j], ldc, beta, loadc)
				continue
			}
			kern6x16(kc, &as[0], &bs[0], &tile[0], accNR, 0, 0)
			for ii := 0; ii < mr; ii++ {
				ci := c[(i+ii)*ldc+jc+j : (i+ii)*ldc+jc+j+nr]
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
// dst[r*6*kc + 6p + i], zero-padded past mc.
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
