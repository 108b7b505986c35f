//go:build js && wasm

package f32

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestSIMDRuns: under node (and any browser we support) the SIMD128
// module must be running; a silent fall-back to pure Go fails here.
func TestSIMDRuns(t *testing.T) {
	if err := AccelError(); err != nil {
		t.Fatalf("SIMD128 kernels not running: %v", err)
	}
	if !hasAccel || !Accelerated() || Kernels() != "simd128" {
		t.Fatalf("hasAccel %v, Accelerated %v, Kernels %q: want the simd128 kernels on", hasAccel, Accelerated(), Kernels())
	}
	defer SetAccelerated(SetAccelerated(false))
	if Kernels() != "go" {
		t.Fatalf("with acceleration off, Kernels = %q, want go", Kernels())
	}
}

// TestSIMDMatchesPureGo: for every layout, odd sizes, strides with
// padding and alpha/beta combinations, the SIMD module's C equals the
// pure-Go kernel's within 1e-5 of the sum of the magnitudes of each
// element's terms (a relative error that does not blow up where terms
// cancel), and it leaves C's padding alone.
func TestSIMDMatchesPureGo(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	sizes := []int{1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 33, 64, 100}
	scalars := [][2]float32{{1, 0}, {1, 1}, {-0.5, 0}, {2, -1.5}, {0.75, 1}}
	cases := 0
	for _, tr := range [4][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
		for range 40 {
			m, n, k := sizes[r.IntN(len(sizes))], sizes[r.IntN(len(sizes))], sizes[r.IntN(len(sizes))]
			if r.IntN(5) == 0 {
				k = 300 + r.IntN(700)
			}
			s := scalars[r.IntN(len(scalars))]
			compareSIMD(t, newCase(r, tr[0], tr[1], m, n, k, r.IntN(3), s[0], s[1]))
			cases++
		}
	}
	// nn's shapes (benchShapes) at batch 64 and at an odd batch.
	for _, s := range benchShapes {
		compareSIMD(t, newCase(r, s.transA, s.transB, s.m, s.n, s.k, 0, 1, 0))
		compareSIMD(t, newCase(r, s.transA, s.transB, s.m, s.n, s.k, 0, 1, 1))
		cases += 2
	}
	t.Logf("%d products compared", cases)
}

func compareSIMD(t *testing.T, g gemmCase) {
	t.Helper()
	want := g.run(false)
	// gemmAccel directly: Gemm would keep tiny products in Go.
	got := append([]float32(nil), g.c...)
	gemmAccel(g.transA, g.transB, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, got, g.ldc)
	for i := 0; i < g.m; i++ {
		for j := 0; j < g.n; j++ {
			var mag float64
			for p := 0; p < g.k; p++ {
				mag += math.Abs(float64(g.alpha) * float64(g.aAt(i, p)) * float64(g.bAt(p, j)))
			}
			mag += math.Abs(float64(g.beta) * float64(g.c[i*g.ldc+j]))
			x, y := got[i*g.ldc+j], want[i*g.ldc+j]
			if d := math.Abs(float64(x) - float64(y)); !(d <= 1e-5*mag) {
				t.Fatalf("%v: C[%d,%d] simd128 %g, pure Go %g: difference %.3g > 1e-5 × %.3g", g, i, j, x, y, d, mag)
			}
		}
		for j := i*g.ldc + g.n; j < min((i+1)*g.ldc, len(got)); j++ {
			if math.Float32bits(got[j]) != math.Float32bits(g.c[j]) {
				t.Fatalf("%v: simd128 changed C's padding at %d", g, j)
			}
		}
	}
}

// BenchmarkGemmCallJS measures the fixed cost of one call into the
// module (a 1×1×1 product) next to the pure-Go kernel's.
func BenchmarkGemmCallJS(b *testing.B) {
	a, x, c := []float32{1}, []float32{2}, []float32{0}
	for _, accel := range []bool{false, true} {
		b.Run(fmt.Sprintf("accel=%v", accel), func(b *testing.B) {
			for b.Loop() {
				if accel {
					gemmAccel(false, false, 1, 1, 1, 1, a, 1, x, 1, 0, c, 1)
				} else {
					gemmRef(false, false, 1, 1, 1, 1, a, 1, x, 1, 0, c, 1)
				}
			}
		})
	}
}
