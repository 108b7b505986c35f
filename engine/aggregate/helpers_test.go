package aggregate

import (
	"math"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

// id returns a test peer ID whose first byte is b.
func id(b byte) ident.Peer { return ident.Peer{b} }

// contrib builds a contribution with the "mlp" arch tag.
func contrib(from byte, size int, params ...float32) Contribution {
	return Contribution{From: id(from), Arch: "mlp", Params: params, DataSize: size}
}

// near fails the test unless got and want agree within 1e-5 elementwise.
func near(t *testing.T, got []float32, want ...float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range got {
		if math.Abs(float64(got[i])-want[i]) > 1e-5 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// toyClip is DefaultClipConfig without the consensus check and without
// leaving copies out, for the hand-built neighbourhoods of one to three
// coordinates in these tests: their differences from ours scatter
// around 0 on purpose, so there is no consensus for the check to judge
// (consensus_test.go tests it on neighbourhoods that agree), and their
// honest neighbours often sit within a quarter of our step of us, where
// no honest neighbour in the lab did (copies_test.go tests copies).
func toyClip() ClipConfig {
	c := DefaultClipConfig()
	c.ConsensusCos, c.CopyBelow = 0, 0
	return c
}

// newToy is New(name) with toyClip as the options' clip.
func newToy(name string) (Aggregator, error) {
	o := DefaultOptions()
	o.Clip = toyClip()
	return NewWith(name, o)
}
