package nn

import "github.com/peerlearn/peerlearn/internal/f32"

// conv2d is a 2-D convolution over NCHW activations, computed as im2col
// plus one GEMM for the whole batch.
//
// With K = inC*kh*kw and P = outH*outW, the batch's patches are laid out
// as cols [K][N*P] (row (c*kh+i)*kw+j holds input pixel (c, oh*s+i-pad,
// ow*s+j-pad) for every sample and output position), so the weights
// [outC][inC][kh][kw] (PyTorch's layout) are already the [outC][K] matrix
// and the output is W·cols = [outC][N*P], then transposed to NCHW.
type conv2d struct {
	in, out      dims
	k, s, p      int
	w, b, dw, db []float32
	noDx         bool

	// cols holds the [K][N*P] patches of the last forward; backward
	// overwrites it with dL/dcols once the weight gradient is done.
	cols  []float32
	outT  []float32 // [outC][N*P]: output, then dL/dy, channel-major
	y, dx []float32
	g     []float32 // [outC][K] one sample's weight gradient (squared mode)
}

func newConv2D(in dims, filters, kernel, stride, pad int) *conv2d {
	oh, ow := (in.H+2*pad-kernel)/stride+1, (in.W+2*pad-kernel)/stride+1
	return &conv2d{in: in, out: dims{C: filters, H: oh, W: ow}, k: kernel, s: stride, p: pad}
}

func (c *conv2d) patch() int { return c.in.C * c.k * c.k }

func (c *conv2d) bind(params, grads []float32) {
	nw := c.out.C * c.patch()
	c.w, c.b = params[:nw], params[nw:nw+c.out.C]
	c.dw, c.db = grads[:nw], grads[nw:nw+c.out.C]
}

func (c *conv2d) fans() (int, int)   { return c.patch(), c.out.C * c.k * c.k }
func (c *conv2d) weights() []float32 { return c.w }
func (c *conv2d) skipInputGrad()     { c.noDx = true }

func (c *conv2d) reserve(n int) {
	np := n * c.out.H * c.out.W
	c.cols = grow(c.cols, c.patch()*np)
	c.outT = grow(c.outT, c.out.C*np)
	c.y = grow(c.y, n*c.out.size())
	if !c.noDx {
		c.dx = grow(c.dx, n*c.in.size())
	}
}

func (c *conv2d) forward(x []float32, n int) []float32 {
	p := c.out.H * c.out.W
	np := n * p
	kk := c.patch()
	c.im2col(x, n)
	outT := c.outT[:c.out.C*np]
	f32.Gemm(false, false, c.out.C, np, kk, 1, c.w, kk, c.cols[:kk*np], np, 0, outT, np)
	y := c.y[:n*c.out.size()]
	for o, bo := range c.b {
		row := outT[o*np : (o+1)*np]
		for i := range n {
			src := row[i*p : (i+1)*p]
			dst := y[(i*c.out.C+o)*p:][:len(src)] // same length: no bounds checks
			for j, v := range src {
				dst[j] = v + bo
			}
		}
	}
	return y
}

func (c *conv2d) backward(dy []float32, n int, sq bool) []float32 {
	p := c.out.H * c.out.W
	np := n * p
	kk := c.patch()
	cols := c.cols[:kk*np]
	dyT := c.outT[:c.out.C*np]
	for o := range c.out.C {
		row := dyT[o*np : (o+1)*np]
		for i := range n {
			copy(row[i*p:(i+1)*p], dy[(i*c.out.C+o)*p:(i*c.out.C+o+1)*p])
		}
	}
	if sq {
		c.addSquaredGrads(dyT, cols, n)
	} else {
		f32.Gemm(false, true, c.out.C, kk, np, 1, dyT, np, cols, np, 1, c.dw, kk)
		for o := range c.out.C {
			c.db[o] += f32.Sum(dyT[o*np : (o+1)*np])
		}
	}
	if c.noDx {
		return nil
	}
	// The patches are no longer needed: their buffer takes dL/dcols.
	f32.Gemm(true, false, kk, np, c.out.C, 1, c.w, kk, dyT, np, 0, cols, np)
	return c.col2im(cols, n)
}

// addSquaredGrads adds each sample's weight and bias gradient, squared.
// Unlike a dense layer's, a conv's per-sample gradient sums over output
// positions, so it needs one small GEMM per sample.
func (c *conv2d) addSquaredGrads(dyT, cols []float32, n int) {
	p := c.out.H * c.out.W
	np := n * p
	kk := c.patch()
	c.g = grow(c.g, c.out.C*kk)
	for i := range n {
		f32.Gemm(false, true, c.out.C, kk, p, 1, dyT[i*p:], np, cols[i*p:], np, 0, c.g, kk)
		for j, v := range c.g {
			c.dw[j] += v * v
		}
		for o := range c.out.C {
			g := f32.Sum(dyT[o*np+i*p : o*np+(i+1)*p])
			c.db[o] += g * g
		}
	}
}

// im2col fills c.cols from the NCHW batch x.
func (c *conv2d) im2col(x []float32, n int) {
	H, W := c.in.H, c.in.W
	oh, ow := c.out.H, c.out.W
	p := oh * ow
	np := n * p
	insz := c.in.size()
	for ch := range c.in.C {
		for ki := range c.k {
			for kj := range c.k {
				row := c.cols[((ch*c.k+ki)*c.k+kj)*np:][:np]
				lo, hi := c.validCols(kj)
				if c.s == 1 {
					// One strided copy of every sample's valid block.
					clear(row)
					if y0, y1 := c.validRows(ki); lo < hi && y0 < y1 {
						f32.CopyStrided(row[y0*ow+lo:], x[ch*H*W+(y0+ki-c.p)*W+lo+kj-c.p:], n, p, insz, y1-y0, ow, W, hi-lo)
					}
					continue
				}
				for i := range n {
					img := x[i*insz+ch*H*W : i*insz+(ch+1)*H*W]
					dst := row[i*p : (i+1)*p]
					for y := range oh {
						d := dst[y*ow : (y+1)*ow]
						ih := y*c.s + ki - c.p
						if ih < 0 || ih >= H || lo >= hi {
							clear(d)
							continue
						}
						src := img[ih*W : (ih+1)*W]
						clear(d[:lo])
						clear(d[hi:])
						if c.s == 1 {
							copy(d[lo:hi], src[lo+kj-c.p:])
							continue
						}
						for xo := lo; xo < hi; xo++ {
							d[xo] = src[xo*c.s+kj-c.p]
						}
					}
				}
			}
		}
	}
}

// validCols returns the output columns [lo, hi) whose kernel column kj
// falls inside the input (iw = xo*s + kj - pad in [0, W)).
func (c *conv2d) validCols(kj int) (lo, hi int) {
	off := kj - c.p
	if off < 0 {
		lo = (-off + c.s - 1) / c.s
	}
	// Largest xo with xo*s + off <= W-1, plus one.
	if last := c.in.W - 1 - off; last >= 0 {
		hi = min(last/c.s+1, c.out.W)
	}
	return lo, max(hi, lo)
}

// validRows returns, for stride 1, the output rows [y0, y1) whose kernel
// row ki falls inside the input (ih = y + ki - pad in [0, H)).
func (c *conv2d) validRows(ki int) (y0, y1 int) {
	y0 = max(c.p-ki, 0)
	y1 = min(c.out.H, c.in.H-ki+c.p)
	return y0, max(y1, y0)
}

// col2im scatters dL/dcols back onto the input positions (summing where
// windows overlap) and returns dL/dx.
func (c *conv2d) col2im(dcols []float32, n int) []float32 {
	H, W := c.in.H, c.in.W
	oh, ow := c.out.H, c.out.W
	p := oh * ow
	np := n * p
	insz := c.in.size()
	dx := c.dx[:n*insz]
	clear(dx)
	for ch := range c.in.C {
		for ki := range c.k {
			for kj := range c.k {
				row := dcols[((ch*c.k+ki)*c.k+kj)*np:][:np]
				lo, hi := c.validCols(kj)
				if lo >= hi {
					continue
				}
				off := kj - c.p
				if c.s == 1 {
					// One strided add of every sample's valid block: each
					// input still gets its windows' terms in (ki, kj) order.
					if y0, y1 := c.validRows(ki); y0 < y1 {
						f32.AddStrided(dx[ch*H*W+(y0+ki-c.p)*W+lo+off:], row[y0*ow+lo:], n, insz, p, y1-y0, W, ow, hi-lo)
					}
					continue
				}
				for i := range n {
					img := dx[i*insz+ch*H*W : i*insz+(ch+1)*H*W]
					src := row[i*p : (i+1)*p]
					for y := range oh {
						ih := y*c.s + ki - c.p
						if ih < 0 || ih >= H {
							continue
						}
						d := img[ih*W : (ih+1)*W]
						s := src[y*ow+lo : y*ow+hi]
						if c.s == 1 {
							d = d[lo+off:][:len(s)] // same length: no bounds checks
							for j, v := range s {
								d[j] += v
							}
							continue
						}
						for j, v := range s {
							d[(lo+j)*c.s+off] += v
						}
					}
				}
			}
		}
	}
	return dx
}
