package nn

// maxPool2d takes the maximum of each k×k window (stride k) of each
// channel. It records where each maximum came from, so backward routes the
// gradient to that one input (the first of equal maxima, as a scan in
// row-major window order finds it).
type maxPool2d struct {
	in, out dims
	k       int
	y, dx   []float32
	arg     []int32 // per output: index of the chosen input within its sample
}

func newMaxPool2D(in dims, k int) *maxPool2d {
	return &maxPool2d{in: in, out: dims{C: in.C, H: in.H / k, W: in.W / k}, k: k}
}

func (m *maxPool2d) reserve(n int) {
	m.y = grow(m.y, n*m.out.size())
	m.arg = growInt32(m.arg, n*m.out.size())
	m.dx = grow(m.dx, n*m.in.size())
}

func (m *maxPool2d) forward(x []float32, n int) []float32 {
	H, W := m.in.H, m.in.W
	insz, outsz := m.in.size(), m.out.size()
	y, arg := m.y[:n*outsz], m.arg[:n*outsz]
	o := 0
	for i := range n {
		for ch := range m.in.C {
			base := i*insz + ch*H*W
			for oy := range m.out.H {
				for ox := range m.out.W {
					top := base + oy*m.k*W + ox*m.k
					best, at := x[top], top
					for ky := range m.k {
						row := top + ky*W
						for kx := range m.k {
							if v := x[row+kx]; v > best {
								best, at = v, row+kx
							}
						}
					}
					y[o], arg[o] = best, int32(at-i*insz)
					o++
				}
			}
		}
	}
	return y
}

func (m *maxPool2d) backward(dy []float32, n int, _ bool) []float32 {
	insz, outsz := m.in.size(), m.out.size()
	dx := m.dx[:n*insz]
	clear(dx)
	for i := range n {
		d := dx[i*insz : (i+1)*insz]
		for j, a := range m.arg[i*outsz : (i+1)*outsz] {
			d[a] += dy[i*outsz+j]
		}
	}
	return dx
}
