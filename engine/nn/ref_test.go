package nn

import (
	"math"
	"math/rand/v2"
)

// refLogits evaluates architecture a on n samples in float64, written
// directly from the layout rule documented on Tensor (weights then bias,
// Dense [out][in], Conv2D [outC][inC][kh][kw], CHW activations, HWC
// inputs). It shares no code with the layers, so agreement with Model
// checks both the layers and the documented layout.
func refLogits(a Arch, p []float64, x []float32, n int) [][]float64 {
	h, w, c := a.Input[0], a.Input[1], a.Input[2]
	out := make([][]float64, n)
	for s := range n {
		// HWC -> CHW
		act := make([]float64, c*h*w)
		for y := range h {
			for xx := range w {
				for ch := range c {
					act[(ch*h+y)*w+xx] = float64(x[s*h*w*c+(y*w+xx)*c+ch])
				}
			}
		}
		C, H, W := c, h, w
		off := 0
		for li, l := range a.Layers {
			switch l.Kind {
			case KindDense:
				in := C * H * W
				wt, b := p[off:off+l.Units*in], p[off+l.Units*in:off+l.Units*in+l.Units]
				off += l.Units*in + l.Units
				next := make([]float64, l.Units)
				for o := range l.Units {
					sum := b[o]
					for i := range in {
						sum += wt[o*in+i] * act[i]
					}
					next[o] = sum
				}
				act, C, H, W = next, l.Units, 1, 1
			case KindConv2D:
				k, st, pd := l.Kernel, l.Stride, l.Pad
				oh, ow := (H+2*pd-k)/st+1, (W+2*pd-k)/st+1
				nw := l.Units * C * k * k
				wt, b := p[off:off+nw], p[off+nw:off+nw+l.Units]
				off += nw + l.Units
				next := make([]float64, l.Units*oh*ow)
				for o := range l.Units {
					for y := range oh {
						for xx := range ow {
							sum := b[o]
							for ch := range C {
								for ki := range k {
									for kj := range k {
										iy, ix := y*st+ki-pd, xx*st+kj-pd
										if iy < 0 || iy >= H || ix < 0 || ix >= W {
											continue
										}
										sum += wt[((o*C+ch)*k+ki)*k+kj] * act[(ch*H+iy)*W+ix]
									}
								}
							}
							next[(o*oh+y)*ow+xx] = sum
						}
					}
				}
				act, C, H, W = next, l.Units, oh, ow
			case KindMaxPool2D:
				k := l.Kernel
				oh, ow := H/k, W/k
				next := make([]float64, C*oh*ow)
				for ch := range C {
					for y := range oh {
						for xx := range ow {
							m := math.Inf(-1)
							for ki := range k {
								for kj := range k {
									m = math.Max(m, act[(ch*H+y*k+ki)*W+xx*k+kj])
								}
							}
							next[(ch*oh+y)*ow+xx] = m
						}
					}
				}
				act, H, W = next, oh, ow
			case KindAvgPool2D:
				k := l.Kernel
				oh, ow := H/k, W/k
				next := make([]float64, C*oh*ow)
				for ch := range C {
					for y := range oh {
						for xx := range ow {
							var sum float64
							for ki := range k {
								for kj := range k {
									sum += act[(ch*H+y*k+ki)*W+xx*k+kj]
								}
							}
							next[(ch*oh+y)*ow+xx] = sum / float64(k*k)
						}
					}
				}
				act, H, W = next, oh, ow
			case KindGlobalAvgPool:
				next := make([]float64, C)
				for ch := range C {
					for _, v := range act[ch*H*W : (ch+1)*H*W] {
						next[ch] += v
					}
					next[ch] /= float64(H * W)
				}
				act, H, W = next, 1, 1
			case KindDropout:
				// Identity unless a test set the masks of a training step.
				if mask := refDropMasks[li]; mask != nil {
					for i := range act {
						act[i] *= float64(mask[s*len(act)+i])
					}
				}
			case KindReLU:
				for i, v := range act {
					act[i] = math.Max(v, 0)
				}
			case KindTanh:
				for i, v := range act {
					act[i] = math.Tanh(v)
				}
			case KindFlatten:
				C, H, W = C*H*W, 1, 1
			}
		}
		out[s] = act
	}
	return out
}

// refDropMasks, when a test sets it, holds for each Dropout layer (by
// index in Arch.Layers) the masks of a batch, [sample][value]; refLogits
// multiplies by them. nil: Dropout is the identity (evaluation).
var refDropMasks map[int][]float32

// refLoss is the mean cross-entropy of refLogits, in float64.
func refLoss(a Arch, p []float64, x []float32, y []int32) float64 {
	var total float64
	for i, z := range refLogits(a, p, x, len(y)) {
		total += refCE(z, int(y[i]))
	}
	return total / float64(len(y))
}

// refCE is the cross-entropy of one row of logits z for label, in
// float64 with math.Exp and math.Log (stable: exponents of z - max(z)).
func refCE(z []float64, label int) float64 {
	m := math.Inf(-1)
	for _, v := range z {
		m = math.Max(m, v)
	}
	var s float64
	for _, v := range z {
		s += math.Exp(v - m)
	}
	return math.Log(s) + m - z[label]
}

func to64(x []float32) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

// randomBatch returns n samples of uniform [0,1) features and labels.
func randomBatch(rng *rand.Rand, a Arch, n int) ([]float32, []int32) {
	f := a.Input[0] * a.Input[1] * a.Input[2]
	x := make([]float32, n*f)
	for i := range x {
		x[i] = rng.Float32()
	}
	y := make([]int32, n)
	for i := range y {
		y[i] = int32(rng.IntN(a.Classes))
	}
	return x, y
}

// initModel builds and He-initialises a model, with small random biases
// so bias paths are exercised too.
func initModel(t interface{ Fatal(...any) }, a Arch, seed uint64) *Model {
	m, err := NewModel(a)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	if err := m.Init(rng, HeNormal, nil); err != nil {
		t.Fatal(err)
	}
	for _, tn := range m.Layout() {
		if tn.Name[len(tn.Name)-4:] == "bias" {
			for j := range tn.Size() {
				m.params[tn.Offset+j] = 0.1 * (2*rng.Float32() - 1)
			}
		}
	}
	return m
}
