package simd128

// Tile of the GEMM micro-kernel: MR rows of C by NR = 4·NV columns, held
// in MR·NV v128 accumulators. x86-64 has 16 vector registers; 4×8 needs
// 8 accumulators, 2 B vectors and an A splat.
const (
	MR = 4
	NV = 2
	NR = 4 * NV
)

// ScratchFloats is how many float32s of scratch memory the gemm export
// needs for an m×n×k product: A packed into MR-row slivers, one packed
// NR-column panel of B, and one staged MR×NR tile.
func ScratchFloats(m, k int) int {
	return (m+MR-1)/MR*MR*k + k*NR + MR*NR
}

// Parameters of the gemm export, in order. Addresses and strides are in
// bytes of linear memory.
const (
	pM       = iota // rows of C (> 0)
	pN              // columns of C (> 0)
	pK              // inner dimension (> 0)
	pAlpha          // f32
	pA              // address of op(A)(0,0)
	pSAI            // stride of op(A) between rows i
	pSAP            // stride of op(A) between columns p
	pB              // address of op(B)(0,0)
	pSBJ            // stride of op(B) between columns j (4: rows of op(B) are contiguous)
	pSBP            // stride of op(B) between rows p
	pC              // address of C(0,0)
	pLDC            // stride of C between rows
	pScratch        // ScratchFloats(m, k) float32s
	nParams
)

// gemmParams is the signature: all i32 except alpha.
func gemmParams() []byte {
	t := make([]byte, nParams)
	for i := range t {
		t[i] = i32
	}
	t[pAlpha] = f32
	return t
}

// gemm emits the body of
//
//	gemm(m, n, k, alpha, a, sai, sap, b, sbj, sbp, c, ldc, scratch)
//
// which computes C += alpha·op(A)·op(B) for any strides: it packs
// alpha·op(A) (alpha applied first, as f32's pure-Go kernel does) into
// MR-row slivers (zero-padded past m) in scratch, then for every
// NR-column panel of op(B), read in place when its rows are contiguous
// (sbj = 4) and the panel is full, else packed (zero-padded past n),
// runs the MR×NR micro-kernel over each sliver: the products summed from
// zero in p order, then added to C (edge tiles through a staged tile).
func gemm() *code {
	c := &code{nparam: nParams}
	var (
		i0    = c.local(i32)
		p     = c.local(i32)
		dst   = c.local(i32)
		src   = c.local(i32)
		jp    = c.local(i32)
		bp    = c.local(i32)
		bs    = c.local(i32)
		pa    = c.local(i32)
		pb    = c.local(i32)
		cnt   = c.local(i32)
		cr    = c.local(i32)
		bpan  = c.local(i32)
		stage = c.local(i32)
		lim   = c.local(i32)
		jj    = c.local(i32)
		bv    [NV]uint32
		acc   [MR][NV]uint32
	)
	for v := range bv {
		bv[v] = c.local(v128)
	}
	for r := range acc {
		for v := range acc[r] {
			acc[r][v] = c.local(v128)
		}
	}
	one := func(v int32) func() { return func() { c.i32c(v) } }
	loc := func(l uint32) func() { return func() { c.get(l) } }

	// Pack alpha·op(A): sliver s holds row s·MR+r, column p at
	// scratch + 4·(s·MR·k + p·MR + r).
	c.get(pScratch).set(dst)
	c.forUp(i0, one(0), loc(pM), one(MR), func() {
		// src = a + i0·sai, advanced by sap per p.
		c.get(pA).get(i0).get(pSAI).op(opI32Mul, opI32Add).set(src)
		c.forUp(p, one(0), loc(pK), one(1), func() {
			for r := int32(0); r < MR; r++ {
				c.get(dst)
				// i0 + r < m ? alpha·A : 0
				c.get(i0).i32c(r).op(opI32Add).get(pM).op(opI32LtS)
				c.op(opIf, f32)
				c.get(pAlpha)
				c.get(src)
				if r > 0 {
					c.get(pSAI).i32c(r).op(opI32Mul, opI32Add)
				}
				c.op(opF32Load).mem(2, 0).op(opF32Mul)
				c.op(opElse, opF32Const, 0, 0, 0, 0, opEnd)
				c.op(opF32Store).mem(2, uint32(4*r))
			}
			c.addLocal(src, pSAP)
			c.addTo(dst, one(4*MR))
		})
	})
	// dst is now the end of the packed A: the B panel, then the stage.
	c.get(dst).set(bpan)
	c.get(dst).get(pK).i32c(4*NR).op(opI32Mul, opI32Add).set(stage)

	c.forUp(jp, one(0), loc(pN), one(NR), func() {
		// In place when contiguous and full, else pack.
		c.get(pSBJ).i32c(4).op(opI32Ne)
		c.get(jp).i32c(NR).op(opI32Add).get(pN).op(opI32GtS)
		c.op(0x72) // i32.or
		c.op(opIf, blockVoid)
		for j := int32(0); j < NR; j++ {
			// dst = bpan + 4j, src = b + (jp+j)·sbj
			c.get(bpan).i32c(4 * j).op(opI32Add).set(dst)
			c.get(jp).i32c(j).op(opI32Add).get(pN).op(opI32LtS)
			c.op(opIf, blockVoid)
			c.get(pB).get(jp).i32c(j).op(opI32Add).get(pSBJ).op(opI32Mul, opI32Add).set(src)
			c.forUp(p, one(0), loc(pK), one(1), func() {
				c.get(dst).get(src).op(opF32Load).mem(2, 0).op(opF32Store).mem(2, 0)
				c.addLocal(src, pSBP)
				c.addTo(dst, one(4*NR))
			})
			c.op(opElse)
			c.forUp(p, one(0), loc(pK), one(1), func() {
				c.get(dst).op(opF32Const, 0, 0, 0, 0).op(opF32Store).mem(2, 0)
				c.addTo(dst, one(4*NR))
			})
			c.op(opEnd)
		}
		c.get(bpan).set(bp)
		c.i32c(4 * NR).set(bs)
		c.op(opElse)
		c.get(pB).get(jp).i32c(4).op(opI32Mul, opI32Add).set(bp)
		c.get(pSBP).set(bs)
		c.op(opEnd)

		c.get(pScratch).set(pa)
		c.forUp(i0, one(0), loc(pM), one(MR), func() {
			microKernel(c, pa, pb, bp, bs, cnt, bv, acc)
			// pa has advanced to the next sliver.
			// Full tile: C += acc in place.
			c.get(jp).i32c(NR).op(opI32Add).get(pN).op(0x4c) // i32.le_s
			c.get(i0).i32c(MR).op(opI32Add).get(pM).op(0x4c)
			c.op(0x71) // i32.and
			c.op(opIf, blockVoid)
			c.get(pC).get(i0).get(pLDC).op(opI32Mul, opI32Add).get(jp).i32c(4).op(opI32Mul, opI32Add).set(cr)
			for r := range MR {
				for v := range NV {
					c.get(cr)
					c.get(cr).simd(simdLoad).mem(2, uint32(16*v))
					c.get(acc[r][v]).simd(simdF32Add)
					c.simd(simdStore).mem(2, uint32(16*v))
				}
				if r < MR-1 {
					c.addLocal(cr, pLDC)
				}
			}
			c.op(opElse)
			// Edge tile: stage it, then add the rows below m and the
			// columns below n one at a time.
			for r := range MR {
				for v := range NV {
					c.get(stage).get(acc[r][v]).simd(simdStore).mem(2, uint32(16*(r*NV+v)))
				}
			}
			// lim = min(NR, n - jp)
			c.get(pN).get(jp).op(opI32Sub).tee(lim).i32c(NR).get(lim).i32c(NR).op(opI32LtS).op(opSelect).set(lim)
			for r := int32(0); r < MR; r++ {
				c.get(i0).i32c(r).op(opI32Add).get(pM).op(opI32LtS)
				c.op(opIf, blockVoid)
				// cr = c + (i0+r)·ldc + 4·jp, src = stage + 4·NR·r
				c.get(pC).get(i0).i32c(r).op(opI32Add).get(pLDC).op(opI32Mul, opI32Add).get(jp).i32c(4).op(opI32Mul, opI32Add).set(cr)
				c.get(stage).i32c(4 * NR * r).op(opI32Add).set(src)
				c.forUp(jj, one(0), loc(lim), one(1), func() {
					c.get(cr)
					c.get(cr).op(opF32Load).mem(2, 0)
					c.get(src).op(opF32Load).mem(2, 0)
					c.op(opF32Add, opF32Store).mem(2, 0)
					c.addTo(cr, one(4))
					c.addTo(src, one(4))
				})
				c.op(opEnd)
			}
			c.op(opEnd)
		})
	})
	return c
}

// microKernel emits acc = Σ_p A(·,p)·B(p,·) over the k steps of one tile:
// A from the packed sliver at pa (MR floats per p; pa advances past the
// sliver), B from bp (NR floats per p, row stride bs bytes).
func microKernel(c *code, pa, pb, bp, bs, cnt uint32, bv [NV]uint32, acc [MR][NV]uint32) {
	splat := c.local(v128)
	for r := range acc {
		for v := range acc[r] {
			c.simd(simdConst).op(make([]byte, 16)...).set(acc[r][v])
		}
	}
	c.get(bp).set(pb)
	c.get(pK).set(cnt)
	c.op(opLoop, blockVoid)
	for v := range NV {
		c.get(pb).simd(simdLoad).mem(2, uint32(16*v)).set(bv[v])
	}
	for r := range MR {
		// One splat, used for every vector of the row.
		c.get(pa).simd(simdLoad32Splt).mem(2, uint32(4*r)).set(splat)
		for v := range NV {
			c.get(acc[r][v]).get(splat).get(bv[v]).simd(simdF32Mul).simd(simdF32Add).set(acc[r][v])
		}
	}
	c.addTo(pa, func() { c.i32c(4 * MR) })
	c.addLocal(pb, bs)
	c.get(cnt).i32c(1).op(opI32Sub).tee(cnt)
	c.op(opBrIf).uleb(0)
	c.op(opEnd)
}
