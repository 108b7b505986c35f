package gpu

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peerlearn/peerlearn/engine/nn"
)

// shimStep applies one step's scalars the way shim.cpp does (sgd_step,
// adam_step), elementwise in float32, with the state buffers given.
func shimStep(s stepScalars, p, g, v, m, sq []float32) {
	for i := range p {
		if s.kind == optSGD {
			gi := g[i] + s.wd*p[i]
			if s.momentum == 0 {
				p[i] += -s.lr * gi
				continue
			}
			v[i] = v[i]*s.momentum + gi
			d := v[i]
			if s.nesterov {
				d = gi + s.momentum*v[i]
			}
			p[i] += -s.lr * d
			continue
		}
		p[i] *= s.decay
		gi := g[i] + s.wd*p[i]
		m[i] = m[i]*s.beta1 + (1-s.beta1)*gi
		sq[i] = sq[i]*s.beta2 + (1-s.beta2)*(gi*gi)
		denom := float32(math.Sqrt(float64(sq[i])))/s.bc2 + s.eps
		p[i] += -s.stepSize * (m[i] / denom)
	}
}

// The host side of the optimiser (hyperparameter snapshot, Adam's step
// count and bias corrections) gives, with the shim's elementwise formulas,
// nn's optimisers bit for bit over steps, a failed step and a reset.
func TestOptimizerScalarsMatchNN(t *testing.T) {
	sgd := func(mu, wd float32, nesterov bool) nn.Optimizer {
		o, err := nn.NewSGD(0.05, mu, wd)
		if err != nil {
			t.Fatal(err)
		}
		o.Nesterov = nesterov
		return o
	}
	adam := func(wd float32, decoupled bool) nn.Optimizer {
		return &nn.Adam{LR: 2e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: wd, Decoupled: decoupled}
	}
	cases := map[string]func() nn.Optimizer{
		"sgd":      func() nn.Optimizer { return sgd(0, 0, false) },
		"momentum": func() nn.Optimizer { return sgd(0.9, 1e-3, false) },
		"nesterov": func() nn.Optimizer { return sgd(0.9, 0, true) },
		"adam":     func() nn.Optimizer { return adam(1e-3, false) },
		"adamw":    func() nn.Optimizer { return adam(0.01, true) },
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			const n = 257
			ref := mk()
			host, err := newOptimizer(mk())
			if err != nil {
				t.Fatal(err)
			}
			p := make([]float32, n)
			for i := range p {
				p[i] = float32(rng.NormFloat64())
			}
			q := append([]float32(nil), p...)
			v, m, sq := make([]float32, n), make([]float32, n), make([]float32, n)
			g := make([]float32, n)
			for step := range 12 {
				for i := range g {
					g[i] = float32(rng.NormFloat64() * 0.1)
				}
				if step == 7 { // a reset, as after an aggregation
					ref.Reset()
					host.reset()
					clear(v)
					clear(m)
					clear(sq)
				}
				if err := ref.Step(p, g); err != nil {
					t.Fatal(err)
				}
				if step == 3 { // a step the shim refused: nothing is committed
					host.next()
				}
				s, commit := host.next()
				shimStep(s, q, g, v, m, sq)
				commit()
				for i := range p {
					if p[i] != q[i] {
						t.Fatalf("step %d param %d: nn %v, host scalars %v", step, i, p[i], q[i])
					}
				}
			}
		})
	}
}

func TestNewOptimizerRefuses(t *testing.T) {
	for name, o := range map[string]nn.Optimizer{
		"nil":        nil,
		"nil sgd":    (*nn.SGD)(nil),
		"nil adam":   (*nn.Adam)(nil),
		"NaN lr":     &nn.SGD{LR: float32(math.NaN())},
		"momentum 2": &nn.SGD{LR: 0.1, Momentum: 2},
		"beta2 1":    &nn.Adam{LR: 1e-3, Beta1: 0.9, Beta2: 1, Eps: 1e-8},
		"other type": otherOptimizer{},
	} {
		if _, err := newOptimizer(o); !errors.Is(err, nn.ErrConfig) {
			t.Errorf("%s: %v, want nn.ErrConfig", name, err)
		}
	}
	if err := (Config{Threads: -1}).validate(); !errors.Is(err, nn.ErrConfig) {
		t.Errorf("negative threads: %v", err)
	}
	if err := (Config{EvalBatch: -1}).validate(); !errors.Is(err, nn.ErrConfig) {
		t.Errorf("negative eval batch: %v", err)
	}
}

type otherOptimizer struct{}

func (otherOptimizer) Step(params, grads []float32) error { return nil }
func (otherOptimizer) Reset()                             {}
