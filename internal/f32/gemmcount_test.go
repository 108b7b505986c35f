package f32

import "testing"

// GemmCalls counts products, with either kernel, and nothing else.
func TestGemmCalls(t *testing.T) {
	a, b, c := make([]float32, 64*64), make([]float32, 64*64), make([]float32, 64*64)
	for _, accel := range []bool{false, true} {
		old := SetAccelerated(accel)
		n0 := GemmCalls()
		Gemm(false, false, 64, 64, 64, 1, a, 64, b, 64, 0, c, 64)
		Gemm(false, false, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2)
		Gemm(false, false, 0, 4, 4, 1, a, 4, b, 4, 0, c, 4) // empty: no product
		_ = Sum(a)
		FirstNonFinite(a)
		SetAccelerated(old)
		if got := GemmCalls() - n0; got != 2 {
			t.Errorf("accelerated %v: %d products counted, want 2", accel, got)
		}
	}
}
