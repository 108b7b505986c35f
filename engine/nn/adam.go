package nn

import "math"

// Adam is the Adam optimiser (Kingma & Ba), with PyTorch's torch.optim.Adam
// update; with Decoupled it is AdamW (Loshchilov & Hutter), whose weight
// decay shrinks the parameters directly instead of adding to the gradient:
//
//	if Decoupled { p = p·(1 - LR·WeightDecay) } else { g = g + WeightDecay·p }
//	m = β1·m + (1-β1)·g
//	v = β2·v + (1-β2)·g²
//	p = p - LR/(1-β1ᵗ) · m / (sqrt(v)/sqrt(1-β2ᵗ) + Eps)
//
// β1ᵗ, β2ᵗ are kept by repeated multiplication in float64, not math.Pow,
// so they are the same bits on every platform.
type Adam struct {
	LR, Beta1, Beta2, Eps, WeightDecay float32
	Decoupled                          bool

	m, v     []float32
	t        int
	b1t, b2t float64 // β1ᵗ, β2ᵗ
}

// NewAdam returns Adam with β1 = 0.9, β2 = 0.999, ε = 1e-8 and no decay.
func NewAdam(lr float32) (*Adam, error) {
	a := &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}
	return a, a.validate()
}

// NewAdamW returns AdamW with β1 = 0.9, β2 = 0.999, ε = 1e-8 and the
// given decoupled weight decay (PyTorch's default is 0.01).
func NewAdamW(lr, weightDecay float32) (*Adam, error) {
	a := &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: weightDecay, Decoupled: true}
	return a, a.validate()
}

func (a *Adam) validate() error {
	for _, c := range []struct {
		name   string
		v      float32
		lo, hi float64
	}{
		{"learning rate", a.LR, 0, 1e6},
		{"beta1", a.Beta1, 0, 0.999999},
		{"beta2", a.Beta2, 0, 0.999999999},
		{"epsilon", a.Eps, 0, 1},
		{"weight decay", a.WeightDecay, 0, 1e6},
	} {
		if err := checkHyper(c.name, c.v, c.lo, c.hi); err != nil {
			return err
		}
	}
	return nil
}

// Step applies one update.
func (a *Adam) Step(params, grads []float32) error {
	if err := a.validate(); err != nil {
		return err
	}
	if err := checkStep(params, grads, &a.m, &a.v); err != nil {
		return err
	}
	if a.t == 0 {
		a.b1t, a.b2t = 1, 1
	}
	a.t++
	a.b1t *= float64(a.Beta1)
	a.b2t *= float64(a.Beta2)
	stepSize := float32(float64(a.LR) / (1 - a.b1t))
	bc2 := float32(math.Sqrt(1 - a.b2t))
	b1, b2, eps, wd := a.Beta1, a.Beta2, a.Eps, a.WeightDecay
	decay := float32(1)
	if a.Decoupled {
		decay = 1 - a.LR*wd
		wd = 0
	}
	m, v := a.m, a.v
	for i, g := range grads {
		p := params[i] * decay
		g += wd * p
		m[i] = b1*m[i] + (1-b1)*g
		v[i] = b2*v[i] + (1-b2)*(g*g)
		denom := float32(math.Sqrt(float64(v[i])))/bc2 + eps
		params[i] = p - stepSize*(m[i]/denom)
	}
	return nil
}

// Reset clears both moments and the step count.
func (a *Adam) Reset() { a.m, a.v, a.t = nil, nil, 0 }
