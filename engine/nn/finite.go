package nn

// finite reports whether every value in x is neither NaN nor infinite,
// and returns the index of the first one that is.
func finite(x []float32) (int, bool) {
	for i, v := range x {
		// v-v is NaN exactly when v is NaN or ±Inf.
		if v-v != 0 {
			return i, false
		}
	}
	return -1, true
}
