package overlaynet

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/sim/simnet"

	"github.com/peerlearn/peerlearn/types/ident"
)

// ids returns n distinct node IDs derived from seed.
func ids(seed uint64, n int) []ident.Peer {
	out := make([]ident.Peer, n)
	for i := range out {
		out[i] = ident.PeerFromPublicKey(fmt.Appendf(nil, "node-%d-%d", seed, i))
	}
	return out
}

func newCluster(t testing.TB, seed uint64, spaces int, lat simnet.Latency) *Cluster {
	t.Helper()
	cfg := DefaultClusterConfig()
	cfg.Seed = seed
	cfg.Overlay.Spaces = spaces
	cfg.Net.Latency = lat
	c, err := NewCluster(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func grow(t testing.TB, c *Cluster, nodes []ident.Peer, batch int, seed uint64) {
	t.Helper()
	if err := c.Grow(nodes, batch, rand.New(rand.NewPCG(seed, 99)), 60*time.Second); err != nil {
		t.Fatal(err)
	}
	noErrors(t, c)
}

func noErrors(t testing.TB, c *Cluster) {
	t.Helper()
	if n, errs := c.Errors(); n > 0 {
		t.Fatalf("%d node errors, first: %v", n, errs)
	}
}
