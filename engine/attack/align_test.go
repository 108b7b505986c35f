package attack

import (
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

// TestAlignConsensus: three neighbours moved (1, 0, 0) and a bit from us
// at 0, so the median difference is about (1, 0, 0). A push along
// (0, 2, 0), across it, comes out at cosine 0.3 with it (bar 0.2 plus
// the margin) and its length 2; a push already along it stays; the slot
// (the attacker's own model) does not count in the median; with no
// neighbour but the slot there is nothing to align with.
func TestAlignConsensus(t *testing.T) {
	self := []float32{0, 0, 0}
	c := func(x, y, z float32) aggregate.Contribution {
		return aggregate.Contribution{Params: []float32{x, y, z}}
	}
	nb := []aggregate.Contribution{c(1, 0.1, 0), c(1, -0.1, 0.1), c(0.9, 0, -0.1), c(-5, 0, 0)}
	v := []float32{0, 2, 0}
	if !AlignConsensus(v, self, nb, []int{3}, 0.2) {
		t.Fatal("not aligned")
	}
	n := math.Hypot(math.Hypot(float64(v[0]), float64(v[1])), float64(v[2]))
	if math.Abs(n-2) > 1e-5 || math.Abs(float64(v[0])/n-0.3) > 1e-5 || v[1] <= 0 {
		t.Errorf("aligned push %v (length %v, cosine %v), want length 2, cosine 0.3 with (1, 0, 0)", v, n, float64(v[0])/n)
	}
	w := []float32{3, 0.5, 0}
	if !AlignConsensus(w, self, nb, []int{3}, 0.2) || w[0] != 3 || w[1] != 0.5 {
		t.Errorf("a push along the consensus changed: %v", w)
	}
	if AlignConsensus([]float32{0, 1, 0}, self, nb[3:], []int{0}, 0.2) {
		t.Error("aligned with no neighbour but the slot")
	}
	rule, _ := aggregate.New(aggregate.SafeDefault)
	if bar, ok := ConsensusBar(rule); !ok || bar != aggregate.DefaultClipConfig().ConsensusCos {
		t.Errorf("ConsensusBar(default) = %v %v", bar, ok)
	}
	plain, _ := aggregate.New("ablate-cons-fedlay")
	if _, ok := ConsensusBar(plain); ok {
		t.Error("ConsensusBar(ablate-cons-fedlay): checked, want not")
	}
}
