package aggregate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// clampEverywhere is coordClip without its shortcut: the median and the
// clamp at every coordinate, as the rule is written in ClipConfig.
func clampEverywhere(c ClipConfig, self Contribution, kept []Contribution) [][]float32 {
	out := make([][]float32, len(kept))
	for k := range kept {
		out[k] = slices.Clone(kept[k].Params)
	}
	dev := make([]float64, len(kept))
	for i, v := range self.Params {
		for k := range kept {
			dev[k] = math.Abs(float64(kept[k].Params[i]) - float64(v))
		}
		r := max(c.CoordRadius*medianOf(dev), c.CoordFloor*math.Abs(float64(v)-float64(self.Origin[i])))
		lo, hi := float32(float64(v)-r), float32(float64(v)+r)
		for k := range kept {
			out[k][i] = min(max(out[k][i], lo), hi)
		}
	}
	return out
}

// TestCoordClipSkipsExactly: coordClip skips the median where the floor
// or the radius times the lowest move already keeps every value; its
// result equals clamping everywhere, bit for bit, on seeded models
// where moves tie the floor exactly, where all move alike, where one
// moves alone, and where we did not step.
func TestCoordClipSkipsExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	const n, k = 4000, 7
	for _, c := range []ClipConfig{{CoordRadius: 16, CoordFloor: 64}, {CoordRadius: 4, CoordFloor: 2}, {CoordRadius: 2, CoordFloor: 1}} {
		self := Contribution{Params: make([]float32, n), Origin: make([]float32, n)}
		kept := make([]Contribution, k)
		for j := range kept {
			kept[j].Params = make([]float32, n)
		}
		for i := range n {
			v := float32(rng.NormFloat64())
			step := float32(0.01 * rng.NormFloat64())
			self.Params[i], self.Origin[i] = v, v-step
			for j := range kept {
				var d float32
				switch i % 4 {
				case 0: // spread about our step
					d = float32(0.015 * rng.NormFloat64())
				case 1: // one moves alone, the rest stay
					if j == 0 {
						d = float32(rng.NormFloat64())
					}
				case 2: // a move exactly at the floor
					d = float32(c.CoordFloor) * (v - self.Origin[i])
				case 3: // we did not step; all move alike
					self.Origin[i] = v
					d = 0.02
				}
				kept[j].Params[i] = v + d
			}
		}
		want := clampEverywhere(c, self, kept)
		got := slices.Clone(kept)
		c.coordClip(self, got)
		for j := range got {
			if !slices.Equal(got[j].Params, want[j]) {
				t.Fatalf("%+v neighbour %d: the shortcut's result differs from clamping everywhere", c, j)
			}
		}
	}
}
