package nn

import "math"

// maxPool2d takes the maximum of each k×k window (stride k) of each
// channel. It records where each maximum came from, so backward routes the
// gradient to that one input (the first of equal maxima in row-major
// window order; for 2×2 windows +0 beats an earlier -0).
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
				top := base + oy*m.k*W
				if m.k == 2 {
					pool2Row(x[top:top+W], x[top+W:top+2*W], y[o:o+m.out.W], arg[o:o+m.out.W], int32(top-i*insz), int32(W))
					o += m.out.W
					continue
				}
				for ox := range m.out.W {
					win := top + ox*m.k
					best, at := x[win], win
					for ky := range m.k {
						row := win + ky*W
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

// pool2Row is the common 2×2 case for one row of windows: rows r0 and r1
// of the input, outputs y, argmax indices arg relative to the sample
// (base is r0's offset in it, w the row length). It compares order keys
// (see orderKey) as integers, which compile to conditional moves: float
// comparisons branch, and on activations the branches are unpredictable.
func pool2Row(r0, r1, y []float32, arg []int32, base, w int32) {
	r0, r1 = r0[:2*len(y)], r1[:2*len(y)]
	arg = arg[:len(y)]
	for ox := range y {
		j := 2 * ox
		best, at := orderKey(r0[j]), int32(j)
		if k := orderKey(r0[j+1]); k > best {
			best, at = k, int32(j+1)
		}
		if k := orderKey(r1[j]); k > best {
			best, at = k, w+int32(j)
		}
		if k := orderKey(r1[j+1]); k > best {
			best, at = k, w+int32(j+1)
		}
		y[ox], arg[ox] = fromOrderKey(best), base+at
	}
}

// orderKey maps a float32 to an int32 with the same order for all
// non-NaN values, except that -0 sorts below +0 (inputs are finite, and
// which of two zeros wins a window changes no value). Negative floats
// have their magnitude bits flipped so that larger magnitudes sort lower.
func orderKey(v float32) int32 {
	b := int32(math.Float32bits(v))
	return b ^ (b >> 31 & 0x7fffffff)
}

// fromOrderKey inverts orderKey (the map is its own inverse).
func fromOrderKey(k int32) float32 {
	return math.Float32frombits(uint32(k ^ (k >> 31 & 0x7fffffff)))
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
