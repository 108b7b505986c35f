package f32

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestStrided: AddStrided and CopyStrided give the pure-Go loops' exact
// bits with acceleration on (the SIMD128 module under GOOS=js, for
// blocks of 512 elements and more), touch nothing outside the blocks,
// and panic on blocks past the end.
func TestStrided(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for _, sh := range [][3]int{{1, 1, 1}, {3, 5, 7}, {64, 28, 28}, {64, 12, 14}, {9, 13, 31}, {5, 20, 9}, {2, 40, 10}, {8, 16, 4}} {
		n, rows, width := sh[0], sh[1], sh[2]
		dr, sr := width+r.IntN(4), width+r.IntN(4)
		dn, sn := rows*dr+r.IntN(5), rows*sr+r.IntN(5)
		for _, add := range []bool{true, false} {
			src := randSlice(r, n*sn)
			dst0 := randSlice(r, n*dn+3)
			run := func(accel bool) []float32 {
				defer SetAccelerated(SetAccelerated(accel))
				d := append([]float32(nil), dst0...)
				if add {
					AddStrided(d, src, n, dn, sn, rows, dr, sr, width)
				} else {
					CopyStrided(d, src, n, dn, sn, rows, dr, sr, width)
				}
				return d
			}
			want := run(false)
			// The reference itself, by index.
			for i := range n {
				for rr := range rows {
					for j := range width {
						x := src[i*sn+rr*sr+j]
						if add {
							x += dst0[i*dn+rr*dr+j]
						}
						if want[i*dn+rr*dr+j] != x {
							t.Fatalf("add=%v %v: pure Go [%d,%d,%d] = %g, want %g", add, sh, i, rr, j, want[i*dn+rr*dr+j], x)
						}
					}
				}
			}
			calls := AccelCalls()
			got := run(true)
			if runtime.GOOS == "js" && n*rows*width >= 512 && AccelCalls() == calls {
				t.Fatalf("add=%v %v: accelerated kernel did not run", add, sh)
			}
			sameBits(t, "strided", n, got, want)
		}
	}
	for _, f := range []func(){
		func() { AddStrided(make([]float32, 10), make([]float32, 100), 2, 5, 10, 2, 3, 3, 3) },
		func() { CopyStrided(make([]float32, 100), make([]float32, 10), 2, 10, 5, 2, 3, 3, 3) },
		func() { CopyStrided(make([]float32, 100), make([]float32, 100), 2, -1, 5, 2, 3, 3, 3) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("out-of-range block: no panic")
				}
			}()
			f()
		}()
	}
}
