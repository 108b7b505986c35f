package f32

// FirstNonFinite returns the index of the first NaN or infinity in x, or
// -1 when every value is finite. Model code, aggregators and the protocols
// that accept a peer's parameters all refuse non-finite values with it.
func FirstNonFinite(x []float32) int {
	start := 0
	if accelerated.Load() {
		start = nonFiniteAccel(x) // no non-finite value before start
		countAccel(start)
	}
	for i := start; i < len(x); i++ {
		v := x[i]
		// v-v is NaN exactly when v is NaN or ±Inf; a compare instead of
		// math.IsNaN and math.IsInf on a float64 conversion, as this runs
		// over every parameter of every model received.
		if v-v != 0 {
			return i
		}
	}
	return -1
}
