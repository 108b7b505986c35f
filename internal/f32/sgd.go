package f32

// SGDUpdate applies one SGD step (nn.SGD's, PyTorch's semantics) to
// params: for every i,
//
//	g = grads[i] + wd*params[i]
//	without vel: d = g
//	with vel:    vel[i] = mu*vel[i] + g; d = nesterov ? g + mu*vel[i] : vel[i]
//	params[i] -= lr*d
//
// each operation rounded to float32 (no fused multiply-add), so every
// kernel gives the same bits. grads and vel (when not nil) must be as
// long as params.
func SGDUpdate(params, grads, vel []float32, lr, mu, wd float32, nesterov bool) {
	grads = grads[:len(params)]
	if vel != nil {
		vel = vel[:len(params)]
	}
	n := 0
	if accelerated.Load() {
		n = sgdAccel(params, grads, vel, lr, mu, wd, nesterov)
		countAccel(n)
	}
	// The float32 conversions forbid fused multiply-adds (which Go may
	// emit on arm64), keeping one rounding per operation everywhere.
	params, grads = params[n:], grads[n:]
	if vel == nil {
		for i, g := range grads {
			g += float32(wd * params[i])
			params[i] -= float32(lr * g)
		}
		return
	}
	vel = vel[n:]
	for i, g := range grads {
		g += float32(wd * params[i])
		vel[i] = float32(mu*vel[i]) + g
		d := vel[i]
		if nesterov {
			d = g + float32(mu*vel[i])
		}
		params[i] -= float32(lr * d)
	}
}
