package simd128

// Element-wise kernels over whole 4-float blocks: the caller passes a
// count that is a multiple of the block (see each) and finishes the tail
// in Go. Pointers are byte addresses in linear memory.

const (
	simdI32Ne   = 0x38
	simdF32Ne   = 0x42
	simdF32Gt   = 0x44
	simdAnd     = 0x4e
	simdOr      = 0x50
	simdAnyTrue = 0x53
	simdF32Extr = 0x1f
	opI32LtU    = 0x49
	opReturn    = 0x0f
)

// zero pushes a v128 of zeros.
func (c *code) zero() *code { return c.simd(simdConst).op(make([]byte, 16)...) }

// blocks emits `for ; x < end; x += step*16 { body }` with end = x +
// 4·n, n > 0 a multiple of 4·step; every pointer in ptrs advances too.
func (c *code) blocks(x, n, end uint32, step int32, ptrs []uint32, body func()) {
	c.get(x).get(n).i32c(4).op(opI32Mul, opI32Add).set(end)
	c.op(opBlock, blockVoid)
	c.get(x).get(end).op(0x4f, opBrIf).uleb(0) // i32.ge_u: nothing to do
	c.op(opLoop, blockVoid)
	body()
	for _, p := range ptrs {
		c.addTo(p, func() { c.i32c(16 * step) })
	}
	c.get(x).get(end).op(opI32LtU, opBrIf).uleb(0)
	c.op(opEnd, opEnd)
}

// relu(x, y, n): y = x where x > 0 or x is NaN, else +0, n a multiple
// of 4 (bit for bit nn's ReLU: a mask, no arithmetic).
func relu() *code {
	c := &code{nparam: 3}
	const x, y, n = 0, 1, 2
	end, v := c.local(i32), c.local(v128)
	c.blocks(x, n, end, 1, []uint32{x, y}, func() {
		c.get(y)
		c.get(x).simd(simdLoad).mem(2, 0).tee(v)
		c.get(v).zero().simd(simdF32Gt)
		c.get(v).get(v).simd(simdF32Ne)
		c.simd(simdOr).simd(simdAnd)
		c.simd(simdStore).mem(2, 0)
	})
	return c
}

// reluGrad(y, dy, dx, n): dx = dy where y's bits are not zero, else +0
// (y = relu's output, never -0), n a multiple of 4.
func reluGrad() *code {
	c := &code{nparam: 4}
	const y, dy, dx, n = 0, 1, 2, 3
	end := c.local(i32)
	c.blocks(y, n, end, 1, []uint32{y, dy, dx}, func() {
		c.get(dx)
		c.get(dy).simd(simdLoad).mem(2, 0)
		c.get(y).simd(simdLoad).mem(2, 0).zero().simd(simdI32Ne)
		c.simd(simdAnd)
		c.simd(simdStore).mem(2, 0)
	})
	return c
}

// sum(x, n) returns the sum of x[:n], n a multiple of 16: four v128
// partial sums (element i goes to sum (i/4) mod 4, lane i mod 4), added
// as (s0+s1)+(s2+s3), then the lanes as (l0+l1)+(l2+l3).
func sum() *code {
	c := &code{nparam: 2}
	const x, n = 0, 1
	end := c.local(i32)
	var s [4]uint32
	for i := range s {
		s[i] = c.local(v128)
		c.zero().set(s[i])
	}
	c.blocks(x, n, end, 4, []uint32{x}, func() {
		for i := range s {
			c.get(s[i]).get(x).simd(simdLoad).mem(2, uint32(16*i)).simd(simdF32Add).set(s[i])
		}
	})
	c.get(s[0]).get(s[1]).simd(simdF32Add)
	c.get(s[2]).get(s[3]).simd(simdF32Add)
	c.simd(simdF32Add).tee(s[0])
	c.simd(simdF32Extr).op(0)
	c.get(s[0]).simd(simdF32Extr).op(1)
	c.op(opF32Add)
	c.get(s[0]).simd(simdF32Extr).op(2)
	c.get(s[0]).simd(simdF32Extr).op(3)
	c.op(opF32Add, opF32Add)
	return c
}

// nonFinite(x, n) returns the index of the first 4-block of x[:n] (n a
// multiple of 4) holding a NaN or an infinity (v-v is not 0), or n.
func nonFinite() *code {
	c := &code{nparam: 2}
	const x, n = 0, 1
	end, start, v := c.local(i32), c.local(i32), c.local(v128)
	c.get(x).set(start)
	c.blocks(x, n, end, 1, []uint32{x}, func() {
		c.get(x).simd(simdLoad).mem(2, 0).tee(v).get(v).simd(simdF32Sub)
		c.zero().simd(simdF32Ne).simd(simdAnyTrue)
		c.op(opIf, blockVoid)
		c.get(x).get(start).op(opI32Sub).i32c(2).op(0x76, opReturn) // (x-start)>>2 (i32.shr_u)
		c.op(opEnd)
	})
	c.get(n)
	return c
}
