package nn

// avgPool2d averages each k×k window (stride k) of each channel; rows and
// columns that do not fill a window are dropped (floor, like maxPool2d and
// PyTorch's AvgPool2d(k) without padding). Backward spreads each output's
// gradient evenly over its window.
type avgPool2d struct {
	in, out dims
	k       int
	y, dx   []float32
}

func newAvgPool2D(in dims, k int) *avgPool2d {
	return &avgPool2d{in: in, out: dims{C: in.C, H: in.H / k, W: in.W / k}, k: k}
}

func (a *avgPool2d) reserve(n int) {
	a.y = grow(a.y, n*a.out.size())
	a.dx = grow(a.dx, n*a.in.size())
}

func (a *avgPool2d) forward(x []float32, n int) []float32 {
	H, W, k := a.in.H, a.in.W, a.k
	insz := a.in.size()
	y := a.y[:n*a.out.size()]
	inv := 1 / float32(k*k)
	o := 0
	for i := range n {
		for ch := range a.in.C {
			base := i*insz + ch*H*W
			for oy := range a.out.H {
				for ox := range a.out.W {
					win := base + oy*k*W + ox*k
					var s float32
					for ky := range k {
						for _, v := range x[win+ky*W : win+ky*W+k] {
							s += v
						}
					}
					y[o] = s * inv
					o++
				}
			}
		}
	}
	return y
}

func (a *avgPool2d) backward(dy []float32, n int, _ bool) []float32 {
	H, W, k := a.in.H, a.in.W, a.k
	insz := a.in.size()
	dx := a.dx[:n*insz]
	clear(dx)
	inv := 1 / float32(k*k)
	o := 0
	for i := range n {
		for ch := range a.in.C {
			base := i*insz + ch*H*W
			for oy := range a.out.H {
				for ox := range a.out.W {
					g := dy[o] * inv
					o++
					win := base + oy*k*W + ox*k
					for ky := range k {
						row := dx[win+ky*W : win+ky*W+k]
						for j := range row {
							row[j] += g
						}
					}
				}
			}
		}
	}
	return dx
}

// globalAvgPool averages each channel over all its H×W positions, so a
// C×H×W activation becomes C values (PyTorch's AdaptiveAvgPool2d(1) then
// Flatten; ONNX GlobalAveragePool then Flatten).
type globalAvgPool struct {
	in    dims
	y, dx []float32
}

func (g *globalAvgPool) reserve(n int) {
	g.y = grow(g.y, n*g.in.C)
	g.dx = grow(g.dx, n*g.in.size())
}

func (g *globalAvgPool) forward(x []float32, n int) []float32 {
	hw := g.in.H * g.in.W
	y := g.y[:n*g.in.C]
	inv := 1 / float32(hw)
	for j := range y {
		var s float32
		for _, v := range x[j*hw : (j+1)*hw] {
			s += v
		}
		y[j] = s * inv
	}
	return y
}

func (g *globalAvgPool) backward(dy []float32, n int, _ bool) []float32 {
	hw := g.in.H * g.in.W
	dx := g.dx[:n*g.in.size()]
	inv := 1 / float32(hw)
	for j, d := range dy[:n*g.in.C] {
		v := d * inv
		row := dx[j*hw : (j+1)*hw]
		for i := range row {
			row[i] = v
		}
	}
	return dx
}
