package f32

// Dot returns the sum of x[i]*y[i]; y must be at least as long as x.
func Dot(x, y []float32) float32 {
	y = y[:len(x)]
	if accelerated.Load() {
		return dotAccel(x, y)
	}
	return dotRef(x, y)
}

// Axpy computes y += alpha*x; y must be at least as long as x.
func Axpy(alpha float32, x, y []float32) {
	y = y[:len(x)]
	if accelerated.Load() {
		axpyAccel(alpha, x, y)
		return
	}
	axpyRef(alpha, x, y)
}

// Scale computes x *= alpha. Every kernel gives the same bits.
func Scale(alpha float32, x []float32) {
	if accelerated.Load() {
		scaleAccel(alpha, x)
		return
	}
	scaleRef(alpha, x)
}

// dotRef sums in four interleaved partial sums (element i goes to sum
// i mod 4), combined as (s0+s1)+(s2+s3), then the tail in order.
func dotRef(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float32(x[i] * y[i])
		s1 += float32(x[i+1] * y[i+1])
		s2 += float32(x[i+2] * y[i+2])
		s3 += float32(x[i+3] * y[i+3])
	}
	s := (s0 + s1) + (s2 + s3)
	for ; i < len(x); i++ {
		s += float32(x[i] * y[i])
	}
	return s
}

func axpyRef(alpha float32, x, y []float32) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += float32(alpha * v)
	}
}

func scaleRef(alpha float32, x []float32) {
	for i := range x {
		x[i] *= alpha
	}
}
