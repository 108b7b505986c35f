package nn

import "testing"

// BenchmarkTrainBatch times one training step (forward, backward, SGD) of
// each built-in architecture on a batch of 64; samples/s is reported.
func BenchmarkTrainBatch(b *testing.B) {
	for _, name := range ArchNames() {
		b.Run(name, func(b *testing.B) {
			a, err := NewArch(name)
			if err != nil {
				b.Fatal(err)
			}
			m := initModel(b, a, 1)
			opt, _ := NewSGD(0.01, 0.9, 0)
			tr, _ := NewTrainer(m, opt)
			x, y := synthetic(1, a, 64)
			b.ResetTimer()
			for range b.N {
				if _, err := tr.TrainBatch(x, y); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(64*b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

// BenchmarkHessianDiag times the Hessian-diagonal estimate on 256 samples.
func BenchmarkHessianDiag(b *testing.B) {
	for _, name := range []string{"mlp", "dechw-cnn"} {
		b.Run(name, func(b *testing.B) {
			a, _ := NewArch(name)
			m := initModel(b, a, 1)
			x, y := synthetic(1, a, 256)
			dst := make([]float32, m.NumParams())
			b.ResetTimer()
			for range b.N {
				if err := m.HessianDiag(x, y, 0, dst, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(256*b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}
