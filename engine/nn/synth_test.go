package nn

import "math/rand/v2"

// synthetic returns n samples of a learnable task: each class has a
// random template, and a sample is its class template plus uniform noise,
// clamped to [0, 1].
func synthetic(seed uint64, a Arch, n int) ([]float32, []int32) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	f := a.Input[0] * a.Input[1] * a.Input[2]
	templates := make([]float32, a.Classes*f)
	for i := range templates {
		templates[i] = rng.Float32()
	}
	x := make([]float32, n*f)
	y := make([]int32, n)
	for i := range n {
		c := rng.IntN(a.Classes)
		y[i] = int32(c)
		for j := range f {
			v := templates[c*f+j] + 0.6*(rng.Float32()-0.5)
			x[i*f+j] = min(max(v, 0), 1)
		}
	}
	return x, y
}
