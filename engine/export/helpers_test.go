package export

import (
	"math/rand/v2"
	"testing"

	"github.com/peerlearn/peerlearn/engine/nn"
)

// oddArch exercises the rank fixes: a Dense on a conv map without
// Flatten, a Conv2D and a MaxPool2D on a flat vector, logits left 4-D,
// three input channels.
func oddArch() nn.Arch {
	return nn.Arch{Name: "odd", Input: [3]int{9, 7, 3}, Classes: 5, Layers: []nn.LayerSpec{
		nn.Conv2D(4, 3, 1), nn.Tanh(), nn.MaxPool2D(2), nn.Dense(12), nn.ReLU(), nn.Conv2D(6, 1, 0), nn.MaxPool2D(1), nn.Conv2D(5, 1, 0),
	}}
}

// pooledArch has the layers added for declared models: AvgPool2D (also
// on a flat vector, so after an Unflatten), Dropout on a map and on a
// vector, GlobalAvgPool on a map and on a flat vector, three channels.
func pooledArch() nn.Arch {
	return nn.Arch{Name: "pooled", Input: [3]int{10, 8, 3}, Classes: 4, Layers: []nn.LayerSpec{
		nn.Conv2D(5, 3, 1), nn.ReLU(), nn.AvgPool2D(2), nn.Dropout(0.25), nn.Conv2D(6, 3, 1), nn.Tanh(),
		nn.GlobalAvgPool(), nn.Dropout(0.5), nn.Dense(8), nn.AvgPool2D(1), nn.GlobalAvgPool(), nn.Dense(4),
	}}
}

// tinyArch is small enough for fuzzing: 2 features, 2 classes.
func tinyArch() nn.Arch {
	return nn.Arch{Name: "tiny", Input: [3]int{1, 2, 1}, Classes: 2, Layers: []nn.LayerSpec{nn.Dense(2)}}
}

// testArchs are the presets and the odd stack.
func testArchs(t testing.TB) []nn.Arch {
	t.Helper()
	var as []nn.Arch
	for _, name := range nn.ArchNames() {
		a, err := nn.NewArch(name)
		if err != nil {
			t.Fatal(err)
		}
		as = append(as, a)
	}
	return append(as, oddArch(), pooledArch(), tinyArch())
}

// randomParams fills a's parameters from a seeded generator.
func randomParams(t testing.TB, a nn.Arch, seed uint64) []float32 {
	t.Helper()
	n, err := a.NumParams()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	p := make([]float32, n)
	for i := range p {
		p[i] = float32(rng.NormFloat64())
	}
	return p
}
