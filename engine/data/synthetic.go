package data

import "math/rand/v2"

// Synthetic is a learnable classification task made up from a seed, for
// tests and determinism checks that must not depend on a downloaded data
// set. Each class has a template of uniform features in [0, 1); a sample
// is its class's template plus uniform noise of width Noise around 0,
// clamped to [0, 1]. Drawing the templates and the samples from separate
// generators gives a training and a test set of the same task.
type Synthetic struct {
	shape     [3]int
	classes   int
	noise     float32
	templates []float32
}

// NewSynthetic draws the templates of a task of classes classes whose
// samples have the given shape from rng.
func NewSynthetic(rng *rand.Rand, shape [3]int, classes int, noise float32) *Synthetic {
	s := &Synthetic{shape: shape, classes: classes, noise: noise}
	s.templates = make([]float32, classes*s.features())
	for i := range s.templates {
		s.templates[i] = rng.Float32()
	}
	return s
}

func (s *Synthetic) features() int { return s.shape[0] * s.shape[1] * s.shape[2] }

// Draw returns n samples, the noise drawn from rng; class(i) gives sample
// i's label and is called just before its features are drawn (so a class
// function may draw from rng too).
func (s *Synthetic) Draw(rng *rand.Rand, n int, class func(i int) int) *Dataset {
	f := s.features()
	d := &Dataset{Name: "synthetic", Shape: s.shape, Classes: s.classes, X: make([]float32, n*f), Y: make([]int32, n)}
	for i := range n {
		c := class(i)
		d.Y[i] = int32(c)
		tpl, x := s.templates[c*f:(c+1)*f], d.X[i*f:(i+1)*f]
		for j := range x {
			// float32(...) keeps an FMA target from fusing the sum.
			x[j] = min(max(tpl[j]+float32(s.noise*(rng.Float32()-0.5)), 0), 1)
		}
	}
	return d
}

// Cycle is the class function that labels samples in turn: 0, 1, ...,
// classes-1, 0, ...
func (s *Synthetic) Cycle(i int) int { return i % s.classes }

// Random returns the class function that draws each label uniformly from
// rng.
func (s *Synthetic) Random(rng *rand.Rand) func(int) int {
	return func(int) int { return rng.IntN(s.classes) }
}
