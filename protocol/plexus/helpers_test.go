package plexus

import (
	"testing"

	"github.com/peerlearn/peerlearn/types/ident"
)

// pid is the i-th test peer: a hashed ID, so its sample keys are random.
func pid(i int) ident.Peer { return ident.PeerFromPublicKey([]byte{byte(i), byte(i >> 8), 0x91}) }

// members returns n members with distinct bandwidths 1000+37*i mod 997.
func members(n int) []Member {
	ms := make([]Member, n)
	for i := range ms {
		ms[i] = Member{pid(i), uint64(1000 + (37*i)%997)}
	}
	return ms
}

func testConfig(id ident.Peer, bw uint64) Config {
	c := DefaultConfig()
	c.ID, c.Bandwidth, c.Arch, c.NumParams = id, bw, "m", 2
	c.SampleSize, c.SuccessFraction = 5, 0.8 // gate 4
	c.AggTimeout, c.RoundTimeout = 20, 30
	return c
}

func newPeer(t *testing.T, ms []Member, i int, mod func(*Config)) *Peer {
	t.Helper()
	c := testConfig(ms[i].ID, ms[i].Bandwidth)
	if mod != nil {
		mod(&c)
	}
	p, err := New(c, ms...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func indexOf(ms []Member, id ident.Peer) int {
	for i, m := range ms {
		if m.ID == id {
			return i
		}
	}
	return -1
}
