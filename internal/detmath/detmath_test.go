package detmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The ports follow Go's pure-Go math.Log, math.Exp and math.Tanh; amd64
// uses assembly versions of the first two that differ from them by a few
// units in the last place, which is why the ports exist. Allow that much.
const maxULPs = 4

// ulps returns the distance between a and b in units in the last place.
func ulps(a, b float64) uint64 {
	ia, ib := int64(math.Float64bits(a)), int64(math.Float64bits(b))
	if ia > ib {
		return uint64(ia - ib)
	}
	return uint64(ib - ia)
}

func TestLogExpTanhFollowMath(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 100000 {
		x := Exp(40 * (rng.Float64() - 0.5)) // 2e-9 .. 5e8
		if i%2 == 0 {
			x = rng.Float64()
		}
		if x > 0 {
			if got, want := Log(x), math.Log(x); ulps(got, want) > maxULPs {
				t.Fatalf("Log(%v) = %v, math.Log %v", x, got, want)
			}
		}
		y := 1400 * (rng.Float64() - 0.5)
		if got, want := Exp(y), math.Exp(y); ulps(got, want) > maxULPs {
			t.Fatalf("Exp(%v) = %v, math.Exp %v", y, got, want)
		}
		z := 50 * (rng.Float64() - 0.5)
		if got, want := Tanh(z), math.Tanh(z); ulps(got, want) > maxULPs {
			t.Fatalf("Tanh(%v) = %v, math.Tanh %v", z, got, want)
		}
	}
}

func TestSpecialValues(t *testing.T) {
	inf := math.Inf(1)
	for i, s := range []struct{ got, want float64 }{
		{Log(0), -inf}, {Log(1), 0}, {Log(inf), inf},
		{Exp(0), 1}, {Exp(-inf), 0}, {Exp(inf), inf}, {Exp(800), inf}, {Exp(-800), 0},
		{Tanh(0), 0}, {Tanh(100), 1}, {Tanh(-100), -1}, {Tanh(inf), 1}, {Tanh(-inf), -1},
	} {
		if s.got != s.want {
			t.Errorf("case %d: got %v, want %v", i, s.got, s.want)
		}
	}
	nan := math.NaN()
	for i, v := range []float64{Log(-1), Log(nan), Exp(nan), Tanh(nan)} {
		if !math.IsNaN(v) {
			t.Errorf("NaN case %d: got %v", i, v)
		}
	}
}

// The bits of a few values as the ports computed them when engine/data
// and engine/nn each had their own copy; a change to the arithmetic (a
// lost float64 wrap, a reordered sum) shows here on the platform that is
// off, natively and under GOOS=js alike.
func TestPinnedBits(t *testing.T) {
	for _, c := range []struct {
		x              float64
		log, exp, tanh uint64
	}{
		{0.3, 0xbff34378fcbda721, 0x3ff599058c8c1a96, 0x3fd2a4dda7d914fa},
		{0.01, 0xc0126bb1bbb55516, 0x3ff0292a5d2f2226, 0x3f847ab48ae4595e},
		{-0.9, 0xbfbaf8e8210a415c, 0x3fda053cc0086e1e, 0xbfe6ebe982d6605d},
		{2.5, 0x3fed5240f0e0e078, 0x40285d6fd931e0bb, 0x3fef9258260a71c2},
		{-3.7, 0x3ff4eeee650ae550, 0x3f99511fc6871044, 0xbfeff5fdc948488c},
		{700.5, 0x401a3509950c84a7, 0x7f18625c7d4f56c2, 0x3ff0000000000000},
		{1e-300, 0xc085963447f87fb5, 0x3ff0000000000000, 0x1a56e1fc2f8f359},
	} {
		if got := math.Float64bits(Log(math.Abs(c.x))); got != c.log {
			t.Errorf("Log(%v) bits %#x, want %#x", math.Abs(c.x), got, c.log)
		}
		if got := math.Float64bits(Exp(c.x)); got != c.exp {
			t.Errorf("Exp(%v) bits %#x, want %#x", c.x, got, c.exp)
		}
		if got := math.Float64bits(Tanh(c.x)); got != c.tanh {
			t.Errorf("Tanh(%v) bits %#x, want %#x", c.x, got, c.tanh)
		}
	}
}

func TestNormalMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 40000
	var s, s2 float64
	for range n {
		v := Normal(rng.Float64)
		s += v
		s2 += v * v
	}
	mean := s / n
	if variance := s2/n - mean*mean; math.Abs(mean) > 0.03 || math.Abs(variance-1) > 0.03 {
		t.Errorf("mean %.4f variance %.4f", mean, variance)
	}
}
