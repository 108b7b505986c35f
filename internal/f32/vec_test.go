package f32

import (
	"math"
	"math/rand/v2"
	"testing"
)

var vecLens = []int{0, 1, 3, 7, 8, 9, 15, 16, 31, 32, 33, 63, 64, 100, 1000, 1027}

func TestDot(t *testing.T) {
	const u = 1.0 / (1 << 24)
	r := rand.New(rand.NewPCG(21, 22))
	for _, accel := range []bool{false, true} {
		prev := SetAccelerated(accel)
		for _, n := range vecLens {
			x, y := randSlice(r, n), randSlice(r, n+3) // y may be longer
			var s, mag float64
			for i := range x {
				s += float64(x[i]) * float64(y[i])
				mag += math.Abs(float64(x[i]) * float64(y[i]))
			}
			got := Dot(x, y)
			if tol := 2 * float64(n+2) * u * mag; !(math.Abs(float64(got)-s) <= tol) {
				t.Errorf("accel=%v n=%d: Dot = %g, want %g ± %g", accel, n, got, s, tol)
			}
		}
		SetAccelerated(prev)
	}
}

func TestAxpyScale(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, n := range vecLens {
		x, y := randSlice(r, n), randSlice(r, n+5)
		yRef := append([]float32(nil), y...)
		yAcc := append([]float32(nil), y...)
		prev := SetAccelerated(false)
		Axpy(0.37, x, yRef)
		SetAccelerated(true)
		Axpy(0.37, x, yAcc)
		SetAccelerated(prev)
		for i := range y {
			if i >= n {
				if yAcc[i] != y[i] || yRef[i] != y[i] {
					t.Fatalf("n=%d: Axpy wrote y[%d] past len(x)", n, i)
				}
				continue
			}
			want := float64(y[i]) + 0.37*float64(x[i])
			for _, got := range []float32{yRef[i], yAcc[i]} {
				if d := math.Abs(float64(got) - want); d > 1e-6*(math.Abs(want)+1) {
					t.Fatalf("n=%d: Axpy y[%d] = %g, want %g", n, i, got, want)
				}
			}
		}
		// Scale gives the same bits on every kernel.
		sRef := append([]float32(nil), x...)
		sAcc := append([]float32(nil), x...)
		prev = SetAccelerated(false)
		Scale(-1.3, sRef)
		SetAccelerated(true)
		Scale(-1.3, sAcc)
		SetAccelerated(prev)
		for i := range x {
			if math.Float32bits(sRef[i]) != math.Float32bits(sAcc[i]) || sRef[i] != x[i]*-1.3 {
				t.Fatalf("n=%d: Scale x[%d]: ref %g, accel %g, want %g", n, i, sRef[i], sAcc[i], x[i]*-1.3)
			}
		}
	}
}

func TestVecShortPanics(t *testing.T) {
	for _, accel := range []bool{false, true} {
		prev := SetAccelerated(accel)
		for name, f := range map[string]func(){
			"Dot":  func() { Dot(make([]float32, 10), make([]float32, 9)) },
			"Axpy": func() { Axpy(1, make([]float32, 10), make([]float32, 9)) },
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("accel=%v %s with short y: no panic", accel, name)
					}
				}()
				f()
			}()
		}
		SetAccelerated(prev)
	}
}
