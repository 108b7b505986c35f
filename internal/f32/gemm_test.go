package f32

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// gemmCase is one Gemm call with its operands in fresh buffers.
type gemmCase struct {
	transA, transB bool
	m, n, k        int
	alpha, beta    float32
	a, b, c        []float32
	lda, ldb, ldc  int
}

func (g gemmCase) String() string {
	return fmt.Sprintf("tA=%v tB=%v m=%d n=%d k=%d alpha=%g beta=%g lda=%d ldb=%d ldc=%d",
		g.transA, g.transB, g.m, g.n, g.k, g.alpha, g.beta, g.lda, g.ldb, g.ldc)
}

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.Float64()*2 - 1)
	}
	return s
}

// newCase builds a random case; pad adds that many unused columns to each
// stored matrix's stride.
func newCase(r *rand.Rand, transA, transB bool, m, n, k, pad int, alpha, beta float32) gemmCase {
	g := gemmCase{transA: transA, transB: transB, m: m, n: n, k: k, alpha: alpha, beta: beta}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	g.lda, g.ldb, g.ldc = ac+pad, bc+pad, n+pad
	g.a = randSlice(r, max(ar*g.lda-pad, 0))
	g.b = randSlice(r, max(br*g.ldb-pad, 0))
	g.c = randSlice(r, m*g.ldc-pad)
	return g
}

func (g gemmCase) aAt(i, p int) float32 {
	if g.transA {
		return g.a[p*g.lda+i]
	}
	return g.a[i*g.lda+p]
}

func (g gemmCase) bAt(p, j int) float32 {
	if g.transB {
		return g.b[j*g.ldb+p]
	}
	return g.b[p*g.ldb+j]
}

// run applies Gemm to a copy of C with the given kernel and returns it.
func (g gemmCase) run(accel bool) []float32 {
	defer SetAccelerated(SetAccelerated(accel))
	c := append([]float32(nil), g.c...)
	Gemm(g.transA, g.transB, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, c, g.ldc)
	return c
}

// check compares got with the float64 product: every element must be
// within 2·(k+2)·2⁻²⁴ of the sum of the magnitudes of its terms (twice the
// standard float32 error bound), and the padding of C must be untouched.
func (g gemmCase) check(t *testing.T, what string, got []float32) {
	t.Helper()
	const u = 1.0 / (1 << 24)
	bad := 0
	for i := 0; i < g.m; i++ {
		for j := 0; j < g.n; j++ {
			var s, mag float64
			for p := 0; p < g.k; p++ {
				x := float64(g.aAt(i, p)) * float64(g.bAt(p, j))
				s += x
				mag += math.Abs(x)
			}
			s *= float64(g.alpha)
			mag *= math.Abs(float64(g.alpha))
			if g.beta != 0 {
				cv := float64(g.beta) * float64(g.c[i*g.ldc+j])
				s += cv
				mag += math.Abs(cv)
			}
			v := got[i*g.ldc+j]
			if tol := 2 * float64(g.k+2) * u * mag; !(math.Abs(float64(v)-s) <= tol) {
				if bad++; bad <= 3 {
					t.Errorf("%s %v: C[%d,%d] = %g, want %g ± %g", what, g, i, j, v, s, tol)
				}
			}
		}
		for j := i*g.ldc + g.n; j < min((i+1)*g.ldc, len(got)); j++ {
			if math.Float32bits(got[j]) != math.Float32bits(g.c[j]) {
				t.Fatalf("%s %v: padding C[%d] changed", what, g, j)
			}
		}
	}
}

var edgeSizes = []int{1, 2, 3, 5, 6, 7, 11, 15, 16, 17, 31, 33, 64, 97}

func randomCases(r *rand.Rand, count int) []gemmCase {
	var cs []gemmCase
	scalars := [][2]float32{{1, 0}, {1, 1}, {-0.5, 0}, {2, -1.5}, {0.75, 1}}
	for i := 0; i < count; i++ {
		m := edgeSizes[r.IntN(len(edgeSizes))]
		n := edgeSizes[r.IntN(len(edgeSizes))]
		k := edgeSizes[r.IntN(len(edgeSizes))]
		if r.IntN(4) == 0 {
			k = 200 + r.IntN(400) // several kc blocks in the assembly kernel
		}
		s := scalars[r.IntN(len(scalars))]
		cs = append(cs, newCase(r, r.IntN(2) == 1, r.IntN(2) == 1, m, n, k, r.IntN(3), s[0], s[1]))
	}
	return cs
}

func TestGemmReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, g := range randomCases(r, 150) {
		g.check(t, "ref", g.run(false))
	}
}

func TestGemmAccelerated(t *testing.T) {
	if !hasAccel {
		t.Skip("no accelerated kernels in this build")
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, g := range randomCases(r, 150) {
		g.check(t, "accel", g.run(true))
		// The assembly kernel directly, below useAccel's threshold too.
		c := append([]float32(nil), g.c...)
		gemmAccel(g.transA, g.transB, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, c, g.ldc)
		g.check(t, "gemmAccel", c)
	}
	// Shapes spanning several kc, mc and nc blocks.
	for _, sz := range [][4]int{{200, 2100, 300, 1}, {13, 2049, 520, 0}, {7, 5, 1000, 1}, {8, 9, 5001, 2}, {16, 72, 1207, 2}} {
		g := newCase(r, sz[3] == 1, sz[3] == 2, sz[0], sz[1], sz[2], 1, 1.5, 0.5)
		c := append([]float32(nil), g.c...)
		gemmAccel(g.transA, g.transB, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, c, g.ldc)
		g.check(t, "gemmAccel", c)
	}
}

// TestGemmReferenceOrder checks the documented summation order: without
// zeros in A the pure-Go kernel gives exactly the bits of the plain loop.
func TestGemmReferenceOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, g := range randomCases(r, 60) {
		got := g.run(false)
		for i := 0; i < g.m; i++ {
			for j := 0; j < g.n; j++ {
				var x float32
				if refDot(g.transA, g.transB, g.m, g.n, g.k) {
					var s float32
					for p := 0; p < g.k; p++ {
						s += float32(g.aAt(i, p) * g.bAt(p, j))
					}
					x = float32(g.alpha * s)
					if g.beta != 0 {
						x += float32(g.beta * g.c[i*g.ldc+j])
					}
				} else {
					if g.beta != 0 {
						x = g.beta * g.c[i*g.ldc+j]
					}
					for p := 0; p < g.k; p++ {
						x += float32(float32(g.alpha*g.aAt(i, p)) * g.bAt(p, j))
					}
				}
				if v := got[i*g.ldc+j]; math.Float32bits(v) != math.Float32bits(x) {
					t.Fatalf("%v: C[%d,%d] = %g, plain loop gives %g", g, i, j, v, x)
				}
			}
		}
	}
}

// TestGemmBetaZeroIgnoresC: with beta 0, NaN and Inf in C must not leak.
func TestGemmBetaZeroIgnoresC(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, accel := range []bool{false, true} {
		for _, sz := range [][3]int{{5, 7, 3}, {64, 128, 100}, {13, 33, 300}} {
			for _, tr := range [4][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
				g := newCase(r, tr[0], tr[1], sz[0], sz[1], sz[2], 0, 1, 0)
				for i := range g.c {
					g.c[i] = float32(math.NaN())
					if i%3 == 0 {
						g.c[i] = float32(math.Inf(-1))
					}
				}
				g.check(t, fmt.Sprintf("accel=%v", accel), g.run(accel))
			}
		}
	}
	// alpha 0 or k 0: C = beta*C, A and B not read.
	c := []float32{1, 2, float32(math.NaN()), 4}
	Gemm(false, false, 2, 2, 0, 1, nil, 0, nil, 0, 0, c, 2)
	c[3] = 4
	Gemm(false, false, 1, 1, 3, 0, nil, 0, nil, 0, 2, c[3:], 1)
	if c[0] != 0 || c[2] != 0 || c[3] != 8 {
		t.Errorf("beta=0 with k=0 left %v", c)
	}
}

// TestGemmThreadIndependence: 1 and N threads give the same bits.
func TestGemmThreadIndependence(t *testing.T) {
	defer SetThreads(SetThreads(1))
	r := rand.New(rand.NewPCG(9, 10))
	shapes := [][3]int{{64, 128, 784}, {784, 128, 64}, {64, 784, 128}, {61, 37, 300}, {10, 1000, 77}, {129, 10, 64}, {8, 9, 5001}, {16, 72, 1200}}
	for _, accel := range []bool{false, true} {
		for _, sz := range shapes {
			for _, tr := range [4][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
				g := newCase(r, tr[0], tr[1], sz[0], sz[1], sz[2], 1, 0.5, 1)
				// Zeros in A exercise the reference's zero skipping.
				for i := range g.a {
					if r.IntN(3) == 0 {
						g.a[i] = 0
					}
				}
				SetThreads(1)
				want := g.run(accel)
				for _, th := range []int{2, 3, 4, 7} {
					SetThreads(th)
					got := g.run(accel)
					for i := range want {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("accel=%v %v: %d threads C[%d] = %g, 1 thread %g", accel, g, th, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestGemmAliasing: A and B may be the same buffer, and all three may be
// disjoint or interleaved parts of one buffer.
func TestGemmAliasing(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, accel := range []bool{false, true} {
		// Gram matrix X^T X with A and B the same slice.
		x := randSlice(r, 70*50)
		g := gemmCase{transA: true, m: 50, n: 50, k: 70, alpha: 1, a: x, lda: 50, b: x, ldb: 50, c: make([]float32, 2500), ldc: 50}
		g.check(t, "gram", g.run(accel))

		// C interleaved with A in one buffer: A in the even columns of a
		// 40×80 buffer, C in the odd ones.
		buf := randSlice(r, 40*80)
		b := randSlice(r, 40*40)
		want := make([]float32, 40*40)
		for i := 0; i < 40; i++ {
			for j := 0; j < 40; j++ {
				var s float64
				for p := 0; p < 40; p++ {
					s += float64(buf[i*80+p]) * float64(b[p*40+j])
				}
				want[i*40+j] = float32(s)
			}
		}
		prev := SetAccelerated(accel)
		Gemm(false, false, 40, 40, 40, 1, buf, 80, b, 40, 0, buf[40:], 80)
		SetAccelerated(prev)
		for i := 0; i < 40; i++ {
			for j := 0; j < 40; j++ {
				if d := math.Abs(float64(buf[40+i*80+j] - want[i*40+j])); d > 1e-4 {
					t.Fatalf("accel=%v interleaved C[%d,%d] = %g, want %g", accel, i, j, buf[40+i*80+j], want[i*40+j])
				}
			}
		}
	}
}

func TestGemmPanics(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	a := make([]float32, 6)
	for _, accel := range []bool{false, true} {
		prev := SetAccelerated(accel)
		mustPanic("short A", func() { Gemm(false, false, 2, 2, 3, 1, a[:5], 3, a, 2, 0, a, 2) })
		mustPanic("short B", func() { Gemm(false, true, 2, 2, 3, 1, a, 3, a[:5], 3, 0, a, 2) })
		mustPanic("short C", func() { Gemm(false, false, 2, 3, 2, 1, a, 2, a, 3, 0, a[:5], 3) })
		mustPanic("small lda", func() { Gemm(false, false, 2, 2, 3, 1, a, 2, a, 2, 0, a, 2) })
		mustPanic("small ldc", func() { Gemm(false, false, 2, 2, 2, 1, a, 2, a, 2, 0, a, 1) })
		mustPanic("negative", func() { Gemm(false, false, 2, -1, 2, 1, a, 2, a, 2, 0, a, 1) })
		mustPanic("short big", func() {
			x := make([]float32, 100*100)
			Gemm(true, false, 100, 100, 100, 1, x, 100, x[:100*99], 100, 0, make([]float32, 100*100), 100)
		})
		SetAccelerated(prev)
	}
	// Empty products are fine with empty slices.
	Gemm(false, false, 0, 5, 5, 1, nil, 5, nil, 5, 0, nil, 5)
	Gemm(false, false, 5, 0, 5, 1, nil, 5, nil, 0, 0, nil, 0)
}

// TestGemmGolden pins the pure-Go kernel's bits: the same constant must come
// out natively (with SetAccelerated(false)) and under GOOS=js.
func TestGemmGolden(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	h := fnv.New64a()
	var word [4]byte
	for _, g := range randomCases(r, 40) {
		for i := range g.a {
			if r.IntN(4) == 0 {
				g.a[i] = 0
			}
		}
		for _, v := range g.run(false) {
			bits := math.Float32bits(v)
			word = [4]byte{byte(bits), byte(bits >> 8), byte(bits >> 16), byte(bits >> 24)}
			h.Write(word[:])
		}
	}
	x := randSlice(r, 1001)
	y := randSlice(r, 1001)
	for _, v := range []float32{dotRef(x, y), dotRef(x[:7], y), dotRef(x[:64], y)} {
		bits := math.Float32bits(v)
		word = [4]byte{byte(bits), byte(bits >> 8), byte(bits >> 16), byte(bits >> 24)}
		h.Write(word[:])
	}
	const want = 0x7bc9448da626c96a
	if got := h.Sum64(); got != want {
		t.Errorf("%s/%s: pure-Go results hash to %#x, want %#x", runtime.GOOS, runtime.GOARCH, got, uint64(want))
	}
}

// TestGemmAccelDirect: reading operands in place gives the same bits as
// packing them (alpha 1), for every transpose and edge.
func TestGemmAccelDirect(t *testing.T) {
	if !hasAccel || runtime.GOARCH != "amd64" {
		t.Skip("no AVX2 kernels (the only ones that read operands in place or packed) in this build")
	}
	defer func() { accDirect = true }()
	r := rand.New(rand.NewPCG(15, 16))
	for _, sz := range [][3]int{{64, 128, 784}, {13, 50, 300}, {96, 33, 17}, {97, 40, 64}, {8, 2000, 9}, {200, 70, 600}} {
		for _, tr := range [4][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			g := newCase(r, tr[0], tr[1], sz[0], sz[1], sz[2], 3, 1, 0.5)
			run := func(direct bool) []float32 {
				accDirect = direct
				c := append([]float32(nil), g.c...)
				gemmAccel(g.transA, g.transB, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, c, g.ldc)
				return c
			}
			want, got := run(false), run(true)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%v: in place C[%d] = %g, packed %g", g, i, got[i], want[i])
				}
			}
			g.check(t, "direct", got)
		}
	}
}

// TestGemmConcurrent: independent Gemm calls from many goroutines (a
// simulator training several peers at once) share no state.
func TestGemmConcurrent(t *testing.T) {
	defer SetThreads(SetThreads(2))
	r := rand.New(rand.NewPCG(17, 18))
	var cases []gemmCase
	var want [][]float32
	for _, sz := range [][3]int{{64, 128, 300}, {16, 72, 1000}, {100, 30, 50}} {
		for _, tr := range [4][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			g := newCase(r, tr[0], tr[1], sz[0], sz[1], sz[2], 0, 1, 0.5)
			cases = append(cases, g)
			want = append(want, g.run(Accelerated()))
		}
	}
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		go func() {
			for rep := 0; rep < 3; rep++ {
				for i, g := range cases {
					c := append([]float32(nil), g.c...)
					Gemm(g.transA, g.transB, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, c, g.ldc)
					for j := range c {
						if math.Float32bits(c[j]) != math.Float32bits(want[i][j]) {
							errs <- fmt.Errorf("%v: concurrent C[%d] = %g, alone %g", g, j, c[j], want[i][j])
							return
						}
					}
				}
			}
			errs <- nil
		}()
	}
	for w := 0; w < 8; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
