package modelcodec

import "math"

// MaxHalf is the largest finite half-precision value.
const MaxHalf = 65504

// toHalf rounds f to the nearest half-precision value (ties to even).
// Beyond MaxHalf it gives an infinity: callers clamp first.
func toHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp32 := int(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp32 == 0xff { // infinity or NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	exp := exp32 - 127 + 15
	if exp >= 31 {
		return sign | 0x7c00
	}
	if exp <= 0 { // a subnormal half, or zero
		if exp < -10 {
			return sign
		}
		full := mant | 0x800000
		shift := uint(14 - exp)
		h := full >> shift
		rem, halfway := full&(1<<shift-1), uint32(1)<<(shift-1)
		if rem > halfway || (rem == halfway && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // a carry into the exponent is the right result, up to infinity
	}
	return sign | uint16(h)
}

// fromHalf returns the float32 that h represents exactly.
func fromHalf(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch exp {
	case 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case 0:
		v := float32(mant) * (1.0 / (1 << 24)) // exact: a power of two
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// clampHalf keeps v within the finite half range.
func clampHalf(v float32) float32 { return max(-MaxHalf, min(MaxHalf, v)) }
