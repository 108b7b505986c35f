package nn

import "github.com/peerlearn/peerlearn/internal/f32"

// dense is a fully connected layer y = x·Wᵀ + b, W stored [out][in]
// row-major (PyTorch's nn.Linear layout), so the batch product is one
// GEMM with B transposed.
type dense struct {
	in, out int
	w, b    []float32
	dw, db  []float32
	noDx    bool

	x     []float32 // last input, kept for backward
	y, dx []float32
	// Scratch for per-sample squared gradients: sum_i (dy_i ⊗ x_i)² equals
	// (dy∘dy)ᵀ·(x∘x), one GEMM instead of one per sample.
	dy2, x2 []float32
}

func newDense(in, out int) *dense { return &dense{in: in, out: out} }

func (d *dense) bind(params, grads []float32) {
	nw := d.in * d.out
	d.w, d.b = params[:nw], params[nw:nw+d.out]
	d.dw, d.db = grads[:nw], grads[nw:nw+d.out]
}

func (d *dense) fans() (int, int)   { return d.in, d.out }
func (d *dense) weights() []float32 { return d.w }
func (d *dense) skipInputGrad()     { d.noDx = true }
func (d *dense) reserve(n int) {
	d.y = grow(d.y, n*d.out)
	if !d.noDx {
		d.dx = grow(d.dx, n*d.in)
	}
}

func (d *dense) forward(x []float32, n int) []float32 {
	d.x = x[:n*d.in]
	y := d.y[:n*d.out]
	f32.Gemm(false, true, n, d.out, d.in, 1, d.x, d.in, d.w, d.in, 0, y, d.out)
	for i := range n {
		row := y[i*d.out : (i+1)*d.out]
		for j, bj := range d.b {
			row[j] += bj
		}
	}
	return y
}

func (d *dense) backward(dy []float32, n int, sq bool) []float32 {
	dy = dy[:n*d.out]
	if sq {
		d.dy2, d.x2 = square(d.dy2, dy), square(d.x2, d.x)
		f32.Gemm(true, false, d.out, d.in, n, 1, d.dy2, d.out, d.x2, d.in, 1, d.dw, d.in)
		for i := range n {
			f32.Axpy(1, d.dy2[i*d.out:(i+1)*d.out], d.db)
		}
	} else {
		f32.Gemm(true, false, d.out, d.in, n, 1, dy, d.out, d.x, d.in, 1, d.dw, d.in)
		for i := range n {
			f32.Axpy(1, dy[i*d.out:(i+1)*d.out], d.db)
		}
	}
	if d.noDx {
		return nil
	}
	dx := d.dx[:n*d.in]
	f32.Gemm(false, false, n, d.in, d.out, 1, dy, d.out, d.w, d.in, 0, dx, d.in)
	return dx
}

// square returns buf (grown) holding x[i]² elementwise.
func square(buf, x []float32) []float32 {
	buf = grow(buf, len(x))
	for i, v := range x {
		buf[i] = v * v
	}
	return buf
}
