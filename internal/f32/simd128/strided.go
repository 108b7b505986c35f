package simd128

// strided(src, dst, n, sn, dn, rows, sr, dr, width) visits n blocks of
// rows rows of width floats: block i row r starts at src + i·sn + r·sr
// and dst + i·dn + r·dr (strides in bytes). With add it sets dst += src
// element by element, else dst = src. Each element is one f32 add or a
// copy, so the result is bit for bit the pure-Go loop's.
func strided(add bool) *code {
	c := &code{nparam: 9}
	const src, dst, n, sn, dn, rows, sr, dr, width = 0, 1, 2, 3, 4, 5, 6, 7, 8
	var (
		i, r, j  = c.local(i32), c.local(i32), c.local(i32)
		s, d, w4 = c.local(i32), c.local(i32), c.local(i32)
		rs, rd   = c.local(i32), c.local(i32)
		one      = func(v int32) func() { return func() { c.i32c(v) } }
		loc      = func(l uint32) func() { return func() { c.get(l) } }
	)
	c.get(width).i32c(-4).op(0x71).set(w4) // width &^ 3
	c.forUp(i, one(0), loc(n), one(1), func() {
		c.get(src).get(i).get(sn).op(opI32Mul, opI32Add).set(rs)
		c.get(dst).get(i).get(dn).op(opI32Mul, opI32Add).set(rd)
		c.forUp(r, one(0), loc(rows), one(1), func() {
			c.get(rs).set(s)
			c.get(rd).set(d)
			c.forUp(j, one(0), loc(w4), one(4), func() {
				c.get(d)
				if add {
					c.get(d).simd(simdLoad).mem(2, 0)
					c.get(s).simd(simdLoad).mem(2, 0)
					c.simd(simdF32Add)
				} else {
					c.get(s).simd(simdLoad).mem(2, 0)
				}
				c.simd(simdStore).mem(2, 0)
				c.addTo(s, one(16))
				c.addTo(d, one(16))
			})
			c.forUp(j, loc(w4), loc(width), one(1), func() {
				c.get(d)
				if add {
					c.get(d).op(opF32Load).mem(2, 0)
					c.get(s).op(opF32Load).mem(2, 0)
					c.op(opF32Add)
				} else {
					c.get(s).op(opF32Load).mem(2, 0)
				}
				c.op(opF32Store).mem(2, 0)
				c.addTo(s, one(4))
				c.addTo(d, one(4))
			})
			c.addLocal(rs, sr)
			c.addLocal(rd, dr)
		})
	})
	return c
}
