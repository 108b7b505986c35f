package simd128

// A minimal WebAssembly binary assembler: just what the kernels use.
// Opcodes and encodings follow the WebAssembly core specification 2.0
// (binary format, section 5) and its fixed-width SIMD proposal.

// Value types.
const (
	i32  = 0x7f
	f32  = 0x7d
	v128 = 0x7b
)

// Control and variable instructions.
const (
	opBlock    = 0x02
	opLoop     = 0x03
	opIf       = 0x04
	opElse     = 0x05
	opEnd      = 0x0b
	opBr       = 0x0c
	opBrIf     = 0x0d
	opLocalGet = 0x20
	opLocalSet = 0x21
	opLocalTee = 0x22
	opF32Load  = 0x2a
	opF32Store = 0x38
	opI32Const = 0x41
	opF32Const = 0x43
	opI32Eqz   = 0x45
	opI32Ne    = 0x47
	opI32LtS   = 0x48
	opI32GtS   = 0x4a
	opI32GeS   = 0x4e
	opI32Add   = 0x6a
	opI32Sub   = 0x6b
	opI32Mul   = 0x6c
	opF32Add   = 0x92
	opF32Mul   = 0x94
	opSelect   = 0x1b
	blockVoid  = 0x40
)

// SIMD instructions (after the 0xfd prefix, LEB128-encoded).
const (
	simdLoad       = 0x00
	simdLoad32Splt = 0x09
	simdStore      = 0x0b
	simdConst      = 0x0c
	simdF32Splat   = 0x13
	simdF32Add     = 0xe4
	simdF32Sub     = 0xe5
	simdF32Mul     = 0xe6
)

// code is a function body under construction.
type code struct {
	b      []byte
	locals []byte // types of the locals after the parameters
	nparam int
}

func (c *code) op(ops ...byte) *code { c.b = append(c.b, ops...); return c }

func (c *code) uleb(v uint32) *code {
	for {
		x := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			c.b = append(c.b, x|0x80)
			continue
		}
		c.b = append(c.b, x)
		return c
	}
}

func (c *code) sleb(v int32) *code {
	for {
		x := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && x&0x40 == 0) || (v == -1 && x&0x40 != 0) {
			c.b = append(c.b, x)
			return c
		}
		c.b = append(c.b, x|0x80)
	}
}

// local adds a local of type t and returns its index.
func (c *code) local(t byte) uint32 {
	c.locals = append(c.locals, t)
	return uint32(c.nparam + len(c.locals) - 1)
}

func (c *code) get(l uint32) *code  { return c.op(opLocalGet).uleb(l) }
func (c *code) set(l uint32) *code  { return c.op(opLocalSet).uleb(l) }
func (c *code) tee(l uint32) *code  { return c.op(opLocalTee).uleb(l) }
func (c *code) i32c(v int32) *code  { return c.op(opI32Const).sleb(v) }
func (c *code) simd(o uint32) *code { return c.op(0xfd).uleb(o) }

// mem appends a memarg: alignment exponent and constant offset.
func (c *code) mem(align, offset uint32) *code { return c.uleb(align).uleb(offset) }

// addTo emits l += x, x pushed by push.
func (c *code) addTo(l uint32, push func()) *code {
	c.get(l)
	push()
	return c.op(opI32Add).set(l)
}

// addLocal emits l += r.
func (c *code) addLocal(l, r uint32) *code { return c.addTo(l, func() { c.get(r) }) }

// forUp emits `for i := from; i < to; i += step { body }` with the loop
// skipped when from >= to; from is pushed by start, to and step are
// locals or constants pushed by the callbacks.
func (c *code) forUp(i uint32, start, end, step func(), body func()) {
	start()
	c.set(i)
	c.op(opBlock, blockVoid)
	c.get(i)
	end()
	c.op(opI32GeS, opBrIf).uleb(0)
	c.op(opLoop, blockVoid)
	body()
	c.addTo(i, step)
	c.get(i)
	end()
	c.op(opI32LtS, opBrIf).uleb(0)
	c.op(opEnd, opEnd)
}

// body returns the function's encoded body: locals (run-length grouped)
// and code, prefixed by its size.
func (c *code) body() []byte {
	var groups [][2]uint32
	for _, t := range c.locals {
		if n := len(groups); n > 0 && groups[n-1][1] == uint32(t) {
			groups[n-1][0]++
			continue
		}
		groups = append(groups, [2]uint32{1, uint32(t)})
	}
	var h code
	h.uleb(uint32(len(groups)))
	for _, g := range groups {
		h.uleb(g[0]).op(byte(g[1]))
	}
	h.b = append(h.b, c.b...)
	h.op(opEnd)
	var out code
	out.uleb(uint32(len(h.b)))
	return append(out.b, h.b...)
}

// section appends section id with its contents, size-prefixed.
func section(dst []byte, id byte, contents []byte) []byte {
	var s code
	s.op(id).uleb(uint32(len(contents)))
	return append(append(dst, s.b...), contents...)
}

func name(s string) []byte {
	var c code
	c.uleb(uint32(len(s)))
	return append(c.b, s...)
}
