package selection

import (
	"math/rand/v2"
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

func id(b byte) ident.Peer { return ident.Peer{b, 0x5e} }

var self = id(0)

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5e1ec7)) }

func ev(b byte, loss, acc float64) Candidate {
	return Candidate{ID: id(b), Evaluated: true, Loss: loss, Accuracy: acc}
}

func policy(t *testing.T, kind Kind, mod func(*Config)) Policy {
	t.Helper()
	c := DefaultConfig(kind)
	c.Self = self
	if mod != nil {
		mod(&c)
	}
	p, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func idsOf(cs []Candidate) []byte {
	out := make([]byte, len(cs))
	for i, c := range cs {
		out[i] = c.ID[0]
	}
	return out
}
