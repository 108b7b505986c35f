package f32

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// elemLens spans both sides of the accelerated kernels' minimum length
// and every tail length.
var elemLens = []int{0, 1, 5, 511, 512, 513, 514, 515, 1000, 4099}

// specialSlice is random with zeros of both signs, NaNs and infinities
// sprinkled in (where special is true).
func specialSlice(r *rand.Rand, n int, special bool) []float32 {
	x := randSlice(r, n)
	for i := range x {
		switch r.IntN(16) {
		case 0:
			x[i] = 0
		case 1:
			x[i] = float32(math.Copysign(0, -1))
		case 2:
			if special {
				x[i] = float32(math.NaN())
			}
		case 3:
			if special {
				x[i] = float32(math.Inf(1 - 2*r.IntN(2)))
			}
		}
	}
	return x
}

func sameBits(t *testing.T, what string, n int, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s n=%d: [%d] = %g (%#x), pure Go %g (%#x)", what, n, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// TestElementwiseKernels: ReLU, ReLUGrad and FirstNonFinite give the
// pure-Go kernels' exact results with acceleration on (the SIMD128 module
// under GOOS=js), and Sum stays within 1e-5 of the sum of magnitudes.
func TestElementwiseKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for _, n := range elemLens {
		x := specialSlice(r, n, true)
		want := make([]float32, n+1)
		reluRef(x, want[:n])
		got := make([]float32, n+1)
		got[n], want[n] = 7, 7 // past the end: untouched
		func() {
			defer SetAccelerated(SetAccelerated(true))
			ReLU(x, got)
		}()
		sameBits(t, "ReLU", n, got, want)
		for i, v := range want[:n] {
			if v == 0 && math.Signbit(float64(v)) || v < 0 {
				t.Fatalf("ReLU n=%d: [%d] = %g from %g", n, i, v, x[i])
			}
		}

		y := append([]float32(nil), want[:n]...) // a ReLU output
		dy := specialSlice(r, n, true)
		reluGradRef(y, dy, want[:n])
		func() {
			defer SetAccelerated(SetAccelerated(true))
			ReLUGrad(y, dy, got)
		}()
		sameBits(t, "ReLUGrad", n, got, want)

		clean := specialSlice(r, n, false)
		for _, at := range []int{-1, 0, n / 2, n - 1} {
			if at >= n || (at < 0 && n == 0) {
				continue
			}
			v := append([]float32(nil), clean...)
			if at >= 0 {
				v[at] = float32(math.Inf(-1))
				if at%2 == 1 {
					v[at] = float32(math.NaN())
				}
			}
			prev := SetAccelerated(true)
			got := FirstNonFinite(v)
			SetAccelerated(prev)
			if got != at {
				t.Fatalf("FirstNonFinite n=%d: %d, want %d", n, got, at)
			}
		}

		var s, mag float64
		var inOrder float32
		for _, v := range clean {
			s += float64(v)
			mag += math.Abs(float64(v))
			inOrder += v
		}
		prev := SetAccelerated(false)
		if got := Sum(clean); math.Float32bits(got) != math.Float32bits(inOrder) {
			t.Fatalf("pure-Go Sum n=%d = %g, in order %g", n, got, inOrder)
		}
		SetAccelerated(true)
		if got := Sum(clean); !(math.Abs(float64(got)-s) <= 1e-5*mag) {
			t.Fatalf("Sum n=%d = %g, want %g ± %g", n, got, s, 1e-5*mag)
		}
		SetAccelerated(prev)
	}
}

// TestSGDUpdate: the accelerated update (SIMD128 under GOOS=js) gives the
// pure-Go loop's exact bits in every mode, and the loop is the documented
// formula.
func TestSGDUpdate(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	for _, n := range elemLens {
		for mode := range 3 {
			p0, g := specialSlice(r, n, false), specialSlice(r, n, false)
			v0 := specialSlice(r, n, false)
			lr, mu, wd := float32(0.05), float32(0.9), float32(1e-3)
			if mode == 0 {
				mu = 0
			}
			run := func(accel bool) (p, v []float32) {
				defer SetAccelerated(SetAccelerated(accel))
				p = append([]float32(nil), p0...)
				if mode > 0 {
					v = append([]float32(nil), v0...)
				}
				calls := AccelCalls()
				SGDUpdate(p, g, v, lr, mu, wd, mode == 2)
				if accel && runtime.GOOS == "js" && n >= 512 && AccelCalls() == calls {
					t.Fatalf("n=%d mode %d: SIMD128 kernel did not run", n, mode)
				}
				return p, v
			}
			wantP, wantV := run(false)
			for i := range p0 {
				gi := g[i] + float32(wd*p0[i])
				d := gi
				if mode > 0 {
					vi := float32(mu*v0[i]) + gi
					d = vi
					if mode == 2 {
						d = gi + float32(mu*vi)
					}
					if wantV[i] != vi {
						t.Fatalf("n=%d mode %d: vel[%d] = %g, want %g", n, mode, i, wantV[i], vi)
					}
				}
				if x := p0[i] - float32(lr*d); wantP[i] != x {
					t.Fatalf("n=%d mode %d: params[%d] = %g, want %g", n, mode, i, wantP[i], x)
				}
			}
			gotP, gotV := run(true)
			sameBits(t, "SGDUpdate params", n, gotP, wantP)
			sameBits(t, "SGDUpdate vel", n, gotV, wantV)
		}
	}
}
