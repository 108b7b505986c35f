package f32

import (
	"math"
	"testing"
)

func TestFirstNonFinite(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	big := float32(math.MaxFloat32)
	for _, c := range []struct {
		x    []float32
		want int
	}{
		{nil, -1}, {[]float32{0, -0, 1, -big, big, math.SmallestNonzeroFloat32}, -1},
		{[]float32{1, nan}, 1}, {[]float32{inf, nan}, 0}, {[]float32{1, 2, -inf}, 2},
	} {
		if got := FirstNonFinite(c.x); got != c.want {
			t.Errorf("FirstNonFinite(%v) = %d, want %d", c.x, got, c.want)
		}
	}
}
