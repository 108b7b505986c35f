package f32

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// benchShapes are the products of one nn training step at batch 64 (nn's
// layouts: dense weights [out][in], conv as W·im2col with cols [K][N·P]):
// the MLP 784-128-10 (forward, weight gradients, input gradient of the
// second layer) and the small CNN's convolutions (3×3, padding 1:
// conv1 1→8 channels on 28×28, conv2 8→16 on 14×14).
var benchShapes = []struct {
	name           string
	transA, transB bool
	m, n, k        int
}{
	{"mlp-fwd1-NT-64x128x784", false, true, 64, 128, 784},
	{"mlp-fwd2-NT-64x10x128", false, true, 64, 10, 128},
	{"mlp-dW1-TN-128x784x64", true, false, 128, 784, 64},
	{"mlp-dW2-TN-10x128x64", true, false, 10, 128, 64},
	{"mlp-dX2-NN-64x128x10", false, false, 64, 128, 10},
	{"conv1-fwd-NN-8x50176x9", false, false, 8, 50176, 9},
	{"conv1-dW-NT-8x9x50176", false, true, 8, 9, 50176},
	{"conv2-fwd-NN-16x12544x72", false, false, 16, 12544, 72},
	{"conv2-dW-NT-16x72x12544", false, true, 16, 72, 12544},
	{"conv2-dX-TN-72x12544x16", true, false, 72, 12544, 16},
	{"square-NN-256", false, false, 256, 256, 256},
}

// BenchmarkGemm reports GFLOP/s of each kernel on one thread ("ref" is the
// pure-Go kernel, the one wasm runs; "accel-packed" the assembly kernels
// with every operand packed) and of the default with all threads.
func BenchmarkGemm(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, s := range benchShapes {
		g := newCase(r, s.transA, s.transB, s.m, s.n, s.k, 0, 1, 0)
		for _, v := range []struct {
			name     string
			accel    bool
			threads  int
			noDirect bool
		}{{"ref", false, 1, false}, {"accel", true, 1, false}, {"accel-packed", true, 1, true}, {"accel-all", true, 0, false}} {
			if v.accel && !hasAccel || v.noDirect && runtime.GOARCH != "amd64" {
				continue // accDirect only means something to the AVX2 kernels
			}
			b.Run(fmt.Sprintf("%s/%s", s.name, v.name), func(b *testing.B) {
				defer SetAccelerated(SetAccelerated(v.accel))
				defer SetThreads(SetThreads(v.threads))
				accDirect = !v.noDirect
				defer func() { accDirect = true }()
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
