package nn

import (
	"math/rand/v2"

	"github.com/peerlearn/peerlearn/engine/data"
)

// synthetic returns n samples of a learnable task (data.Synthetic, noise
// 0.6) of a's shape, labels drawn at random, all from one seeded rng.
func synthetic(seed uint64, a Arch, n int) ([]float32, []int32) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	s := data.NewSynthetic(rng, a.Input, a.Classes, 0.6)
	d := s.Draw(rng, n, s.Random(rng))
	return d.X, d.Y
}
