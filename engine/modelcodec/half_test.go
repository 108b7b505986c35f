package modelcodec

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestHalfRoundTripsEveryHalf(t *testing.T) {
	for h := range 1 << 16 {
		f := fromHalf(uint16(h))
		if math.IsNaN(float64(f)) {
			if got := toHalf(f); got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
				t.Fatalf("NaN %#04x -> %#04x", h, got)
			}
			continue
		}
		if got := toHalf(f); got != uint16(h) {
			t.Fatalf("half %#04x -> %v -> %#04x", h, f, got)
		}
	}
}

// toHalf must give the nearest half (ties to even): check it against
// its two neighbours for random floats across the half range.
func TestHalfRoundsToNearest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		f := float32(math.Ldexp(rng.Float64(), rng.IntN(40)-26))
		if rng.IntN(2) == 0 {
			f = -f
		}
		h := toHalf(f)
		got := float64(fromHalf(h))
		err := math.Abs(got - float64(f))
		for _, n := range []uint16{h - 1, h + 1} {
			nv := float64(fromHalf(n))
			if math.IsInf(nv, 0) || math.IsNaN(nv) || (n^h)&0x8000 != 0 {
				continue
			}
			if d := math.Abs(nv - float64(f)); d < err || (d == err && h&1 == 1) {
				t.Fatalf("toHalf(%v) = %v (err %g), neighbour %v is nearer or the even tie", f, got, err, nv)
			}
		}
	}
	if toHalf(1e6) != 0x7c00 || toHalf(-1e6) != 0xfc00 {
		t.Fatal("overflow does not give infinity")
	}
	if fromHalf(toHalf(clampHalf(1e6))) != MaxHalf {
		t.Fatal("clampHalf does not keep the value finite")
	}
}
