//go:build torch

package gpu

import (
	"math/rand/v2"
	"testing"

	"github.com/peerlearn/peerlearn/engine/nn"
	"github.com/peerlearn/peerlearn/internal/f32"
)

// BenchmarkTrainBatch: one SGD step of 64 random samples, one thread, on
// libtorch and on the pure-Go engine (`peerlearn bench companion` is the
// interleaved, best-of version).
func BenchmarkTrainBatch(b *testing.B) {
	defer f32.SetThreads(f32.SetThreads(1))
	for _, arch := range []string{"mlp", "small-cnn"} {
		a := mustArch(arch)
		x, y := synthetic(1, a, 64)
		for _, engine := range []string{"torch", "go"} {
			b.Run(arch+"/"+engine, func(b *testing.B) {
				if err := setThreads(); err != nil {
					b.Fatal(err)
				}
				m, err := nn.NewModel(a)
				if err != nil {
					b.Fatal(err)
				}
				if err := m.Init(rand.New(rand.NewPCG(1, 2)), nn.HeNormal, nil); err != nil {
					b.Fatal(err)
				}
				var be nn.Backend
				if engine == "go" {
					if be, err = nn.NewTrainer(m, mustSGD(0.01, 0, 0)); err != nil {
						b.Fatal(err)
					}
				} else {
					tb, err := New(a, mustSGD(0.01, 0, 0), Config{Device: "cpu"})
					if err != nil {
						b.Fatal(err)
					}
					defer tb.Close()
					if err := tb.SetParams(m.Params()); err != nil {
						b.Fatal(err)
					}
					be = tb
				}
				for b.Loop() {
					if _, err := be.TrainBatch(x, y); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*64)/b.Elapsed().Seconds(), "samples/s")
			})
		}
	}
}
