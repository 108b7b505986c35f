package f32

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchShapes are the products of one training step at batch 64: the MLP
// 784-128-10 (forward, then the weight and input gradients) and the small
// CNN's second convolution as an im2col product (64 images × 11×11
// positions, 3×3×8 patch, 16 filters).
var benchShapes = []struct {
	name           string
	transA, transB bool
	m, n, k        int
}{
	{"mlp-fwd1-64x784x128", false, false, 64, 128, 784},
	{"mlp-fwd2-64x128x10", false, false, 64, 10, 128},
	{"mlp-dW2-128x64x10", true, false, 128, 10, 64},
	{"mlp-dH-64x10x128", false, true, 64, 128, 10},
	{"mlp-dW1-784x64x128", true, false, 784, 128, 64},
	{"conv2-fwd-7744x72x16", false, false, 7744, 16, 72},
	{"conv2-dW-72x7744x16", true, false, 72, 16, 7744},
	{"conv2-dX-7744x16x72", false, true, 7744, 72, 16},
	{"square-256", false, false, 256, 256, 256},
}

// BenchmarkGemm reports GFLOP/s of each kernel on one thread ("ref" is the
// pure-Go kernel, the one wasm runs) and of the default with all threads.
func BenchmarkGemm(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, s := range benchShapes {
		g := newCase(r, s.transA, s.transB, s.m, s.n, s.k, 0, 1, 0)
		for _, v := range []struct {
			name    string
			accel   bool
			threads int
		}{{"ref", false, 1}, {"accel", true, 1}, {"accel-all", true, 0}} {
			if v.accel && !hasAccel {
				continue
			}
			b.Run(fmt.Sprintf("%s/%s", s.name, v.name), func(b *testing.B) {
				defer SetAccelerated(SetAccelerated(v.accel))
				defer SetThreads(SetThreads(v.threads))
				c := make([]float32, len(g.c))
				for b.Loop() {
					Gemm(g.transA, g.transB, g.m, g.n, g.k, 1, g.a, g.lda, g.b, g.ldb, 0, c, g.ldc)
				}
				flops := 2 * float64(s.m) * float64(s.n) * float64(s.k) * float64(b.N)
				b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

func BenchmarkDot(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	x, y := randSlice(r, 1024), randSlice(r, 1024)
	for _, accel := range []bool{false, true} {
		b.Run(fmt.Sprintf("accel=%v", accel), func(b *testing.B) {
			defer SetAccelerated(SetAccelerated(accel))
			var s float32
			for b.Loop() {
				s += Dot(x, y)
			}
			b.ReportMetric(2*1024*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

func BenchmarkAxpy(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 3))
	x, y := randSlice(r, 1024), randSlice(r, 1024)
	for _, accel := range []bool{false, true} {
		b.Run(fmt.Sprintf("accel=%v", accel), func(b *testing.B) {
			defer SetAccelerated(SetAccelerated(accel))
			for b.Loop() {
				Axpy(1e-3, x, y)
			}
			b.ReportMetric(2*1024*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
