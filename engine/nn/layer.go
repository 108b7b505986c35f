package nn

// layer is one stage of a model. A layer keeps its output and input-
// gradient buffers across steps (grown by reserve, never shrunk), so a
// training step allocates nothing once the largest batch has been seen.
//
// Activations are per-sample CHW, batched NCHW: sample i of a batch with
// per-sample size s is x[i*s : (i+1)*s].
type layer interface {
	// reserve grows the buffers to hold a batch of n samples.
	reserve(n int)
	// forward computes the output of a batch of n samples. The result is
	// a view of the layer's buffer (or of x), valid until the next forward.
	// The layer may keep x for backward, so x must not change in between.
	forward(x []float32, n int) []float32
	// backward takes dL/dy of the last forward batch, adds the parameter
	// gradients (summed over samples, or with sq the sum over samples of
	// each per-sample gradient squared) into the gradient views, and
	// returns dL/dx, or nil when the layer was told it needs no dx.
	backward(dy []float32, n int, sq bool) []float32
}

// paramLayer is a layer with a weight tensor and a bias vector, bound to
// views of the model's flat parameter and gradient slices.
type paramLayer interface {
	layer
	// bind points the layer at its parameters and gradients: w then b, in
	// the layout documented on Tensor.
	bind(params, grads []float32)
	// fans returns the fan-in and fan-out used by the initialisers
	// (PyTorch's convention: a conv's fans include the kernel area).
	fans() (in, out int)
	// weights returns the view of the weight tensor.
	weights() []float32
	// skipInputGrad tells the layer that nobody needs its dL/dx (it is the
	// first layer), which saves a GEMM per step.
	skipInputGrad()
}

// grow returns buf resized to n values, reallocating only when its
// capacity is short. Contents are not preserved.
func grow(buf []float32, n int) []float32 {
	if cap(buf) < n {
		return make([]float32, n)
	}
	return buf[:n]
}

func growInt32(buf []int32, n int) []int32 {
	if cap(buf) < n {
		return make([]int32, n)
	}
	return buf[:n]
}
