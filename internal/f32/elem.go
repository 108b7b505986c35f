package f32

import "math"

// Element-wise kernels of nn's layers. The accelerated versions
// (*Accel, per platform) handle a leading part of the vector, as many
// elements as they return, and the pure-Go loop does the rest; ReLU,
// ReLUGrad and FirstNonFinite give the same result whichever runs.

// ReLU sets y[i] to x[i] where x[i] > 0 or x[i] is NaN (so a diverged
// model still shows a NaN loss), else to +0; y must be at least as long
// as x.
func ReLU(x, y []float32) {
	y = y[:len(x)]
	n := 0
	if accelerated.Load() {
		n = reluAccel(x, y)
		countAccel(n)
	}
	reluRef(x[n:], y[n:])
}

func reluRef(x, y []float32) {
	y = y[:len(x)]
	for i, v := range x {
		// Not the builtin max: under wasm it is a runtime call (fmax32).
		if !(v > 0) && v == v {
			v = 0
		}
		y[i] = v
	}
}

// ReLUGrad sets dx[i] to dy[i] where y[i] (a ReLU output, never -0) is
// not zero, else to +0; dy and dx must be at least as long as y.
func ReLUGrad(y, dy, dx []float32) {
	dy, dx = dy[:len(y)], dx[:len(y)]
	n := 0
	if accelerated.Load() {
		n = reluGradAccel(y, dy, dx)
		countAccel(n)
	}
	reluGradRef(y[n:], dy[n:], dx[n:])
}

func reluGradRef(y, dy, dx []float32) {
	dy, dx = dy[:len(y)], dx[:len(y)]
	for i, v := range y {
		// A mask instead of a branch, which random signs would
		// mispredict half the time.
		var keep uint32
		if math.Float32bits(v) != 0 {
			keep = ^uint32(0)
		}
		dx[i] = math.Float32frombits(math.Float32bits(dy[i]) & keep)
	}
}

// Sum returns the sum of x. The pure-Go kernel adds in order; the
// accelerated one may use partial sums (another rounding).
func Sum(x []float32) float32 {
	var s float32
	n := 0
	if accelerated.Load() {
		s, n = sumAccel(x)
		countAccel(n)
	}
	for _, v := range x[n:] {
		s += v
	}
	return s
}

// countAccel counts a call whose accelerated kernel did n > 0 elements.
func countAccel(n int) {
	if n > 0 {
		accelCalls.Add(1)
	}
}
