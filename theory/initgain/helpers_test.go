package initgain

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peerlearn/peerlearn/theory/topology"
)

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x1417)) }

// relErr is |got-want|/|want|.
func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// meanNorm averages ‖v_steady‖ and the node count over graphs from gen.
func meanNorm(t *testing.T, seeds int, gen func(*rand.Rand) (*topology.Graph, error)) (norm, nodes float64) {
	t.Helper()
	for s := range seeds {
		g, err := gen(seeded(uint64(1000 + s)))
		if err != nil {
			t.Fatal(err)
		}
		x, err := topology.VSteadyNorm(g)
		if err != nil {
			t.Fatal(err)
		}
		norm += x / float64(seeds)
		nodes += float64(g.N()) / float64(seeds)
	}
	return norm, nodes
}
