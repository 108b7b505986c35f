package nn

import (
	"github.com/peerlearn/peerlearn/internal/detmath"
	"github.com/peerlearn/peerlearn/internal/f32"
)

// relu is max(x, 0). Its derivative at 0 is taken as 0 (as in PyTorch), so
// backward only needs the output: dy passes where y > 0.
type relu struct {
	size  int
	y, dx []float32
}

func (r *relu) reserve(n int) { r.y = grow(r.y, n*r.size); r.dx = grow(r.dx, n*r.size) }

func (r *relu) forward(x []float32, n int) []float32 {
	y := r.y[:n*r.size]
	// NaN passes through, as with max, so a diverged model still shows
	// a NaN loss.
	f32.ReLU(x[:n*r.size], y)
	return y
}

func (r *relu) backward(dy []float32, n int, _ bool) []float32 {
	dx := r.dx[:n*r.size]
	// y ≥ 0 (ReLU returns +0, never -0), so y > 0 exactly when its bits
	// are not 0.
	f32.ReLUGrad(r.y[:len(dx)], dy, dx)
	return dx
}

// tanh is the hyperbolic tangent, evaluated in float64 by detmath.Tanh (see
// internal/detmath) and rounded; its derivative is 1 - y².
type tanh struct {
	size  int
	y, dx []float32
}

func (t *tanh) reserve(n int) { t.y = grow(t.y, n*t.size); t.dx = grow(t.dx, n*t.size) }

func (t *tanh) forward(x []float32, n int) []float32 {
	y := t.y[:n*t.size]
	for i, v := range x[:n*t.size] {
		y[i] = float32(detmath.Tanh(float64(v)))
	}
	return y
}

func (t *tanh) backward(dy []float32, n int, _ bool) []float32 {
	dx := t.dx[:n*t.size]
	for i, v := range t.y[:n*t.size] {
		dx[i] = dy[i] * (1 - float32(v*v))
	}
	return dx
}

// flatten only relabels CHW as a vector: values and order are unchanged.
type flatten struct{}

func (flatten) reserve(int)                                    {}
func (flatten) forward(x []float32, _ int) []float32           { return x }
func (flatten) backward(dy []float32, _ int, _ bool) []float32 { return dy }

// hwcToCHW reorders samples from the datasets' HWC order to the CHW order
// the layers use. The model inserts it first when the input has C > 1.
type hwcToCHW struct {
	in    dims
	y, dx []float32
}

func (p *hwcToCHW) reserve(n int) {
	p.y = grow(p.y, n*p.in.size())
	p.dx = grow(p.dx, n*p.in.size())
}

func (p *hwcToCHW) forward(x []float32, n int) []float32 {
	y := p.y[:n*p.in.size()]
	p.permute(x, y, n, false)
	return y
}

func (p *hwcToCHW) backward(dy []float32, n int, _ bool) []float32 {
	dx := p.dx[:n*p.in.size()]
	p.permute(dy, dx, n, true)
	return dx
}

// permute copies src to dst, HWC to CHW, or CHW to HWC when inverse.
func (p *hwcToCHW) permute(src, dst []float32, n int, inverse bool) {
	C, HW := p.in.C, p.in.H*p.in.W
	sz := p.in.size()
	for i := range n {
		s, d := src[i*sz:(i+1)*sz], dst[i*sz:(i+1)*sz]
		for px := range HW {
			for ch := range C {
				if inverse {
					d[px*C+ch] = s[ch*HW+px]
				} else {
					d[ch*HW+px] = s[px*C+ch]
				}
			}
		}
	}
}
