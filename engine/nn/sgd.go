package nn

import "github.com/peerlearn/peerlearn/internal/f32"

// SGD is stochastic gradient descent with optional momentum, Nesterov
// momentum and L2 weight decay, with PyTorch's torch.optim.SGD semantics
// (dampening 0):
//
//	g = grad + WeightDecay·p
//	v = Momentum·v + g          (v starts at 0, so the first v is g)
//	p = p - LR·(Nesterov ? g + Momentum·v : v)
type SGD struct {
	LR, Momentum, WeightDecay float32
	Nesterov                  bool
	vel                       []float32
}

// NewSGD returns plain SGD with momentum (0 for none) and weight decay.
func NewSGD(lr, momentum, weightDecay float32) (*SGD, error) {
	s := &SGD{LR: lr, Momentum: momentum, WeightDecay: weightDecay}
	return s, s.validate()
}

func (s *SGD) validate() error {
	if err := checkHyper("learning rate", s.LR, 0, 1e6); err != nil {
		return err
	}
	if err := checkHyper("momentum", s.Momentum, 0, 1); err != nil {
		return err
	}
	return checkHyper("weight decay", s.WeightDecay, 0, 1e6)
}

// Step applies one update.
func (s *SGD) Step(params, grads []float32) error {
	if err := s.validate(); err != nil {
		return err
	}
	var state []*[]float32
	if s.Momentum != 0 {
		state = append(state, &s.vel)
	}
	if err := checkStep(params, grads, state...); err != nil {
		return err
	}
	var vel []float32
	if s.Momentum != 0 {
		vel = s.vel
	}
	// The update itself is f32's (the same float32 operations on every
	// kernel, vectorised in the browser).
	f32.SGDUpdate(params, grads, vel, s.LR, s.Momentum, s.WeightDecay, s.Nesterov)
	return nil
}

// Reset clears the momentum.
func (s *SGD) Reset() { s.vel = nil }
