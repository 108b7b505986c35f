package simd128

// sgd(p, g, v, n, lr, mu, wd, mode) is nn's SGD update over n
// parameters (a multiple of 4), lane by lane with the pure-Go loop's
// float32 operations (no fused multiply-add), so the same bits:
//
//	g' = g + wd·p
//	mode 0: d = g'
//	mode 1: v = mu·v + g'; d = v
//	mode 2: v = mu·v + g'; d = g' + mu·v   (Nesterov)
//	p = p - lr·d
func sgd() *code {
	c := &code{nparam: 8}
	const p, g, v, n, lr, mu, wd, mode = 0, 1, 2, 3, 4, 5, 6, 7
	var (
		end, gv, vv   = c.local(i32), c.local(v128), c.local(v128)
		lrv, muv, wdv = c.local(v128), c.local(v128), c.local(v128)
	)
	c.get(lr).simd(simdF32Splat).set(lrv)
	c.get(mu).simd(simdF32Splat).set(muv)
	c.get(wd).simd(simdF32Splat).set(wdv)
	c.blocks(p, n, end, 1, []uint32{p, g, v}, func() {
		c.get(p) // the store's address, under the update
		// g' = g + wd·p
		c.get(g).simd(simdLoad).mem(2, 0)
		c.get(wdv).get(p).simd(simdLoad).mem(2, 0).simd(simdF32Mul)
		c.simd(simdF32Add).set(gv)
		// p (loaded) - lr·d
		c.get(p).simd(simdLoad).mem(2, 0)
		c.get(lrv)
		c.get(mode).op(opI32Eqz)
		c.op(opIf, v128)
		c.get(gv)
		c.op(opElse)
		// v = mu·v + g'
		c.get(muv).get(v).simd(simdLoad).mem(2, 0).simd(simdF32Mul).get(gv).simd(simdF32Add).set(vv)
		c.get(v).get(vv).simd(simdStore).mem(2, 0)
		c.get(mode).i32c(2).op(0x46) // i32.eq
		c.op(opIf, v128)
		c.get(gv).get(muv).get(vv).simd(simdF32Mul).simd(simdF32Add)
		c.op(opElse)
		c.get(vv)
		c.op(opEnd)
		c.op(opEnd)
		c.simd(simdF32Mul).simd(simdF32Sub)
		c.simd(simdStore).mem(2, 0)
	})
	return c
}
