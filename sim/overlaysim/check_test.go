package overlaysim

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/types/ident"
)

// TestCheckerMatchesOverlayCheck: the cached checker agrees with
// Cluster.Correctness (overlay.Check) through a build, a crash and the
// repair, correct or not.
func TestCheckerMatchesOverlayCheck(t *testing.T) {
	p := DefaultParams()
	p.Latency = 50 * time.Millisecond
	p.Spaces = 3
	c, err := p.newCluster(true)
	if err != nil {
		t.Fatal(err)
	}
	k := newChecker(c)
	same := func(when string) {
		t.Helper()
		if got, want := k.check(), c.Correctness(); got != want {
			t.Fatalf("%s: checker %+v, overlay.Check %+v", when, got, want)
		}
	}
	same("empty")
	ids := p.ids("check", 40)
	if _, err := c.AddNode(ids[0]); err != nil {
		t.Fatal(err)
	}
	same("one node")
	rng := rand.New(rand.NewPCG(1, 2))
	if err := joinAll(c, ids[1:], []ident.Peer{ids[0]}, rng); err != nil {
		t.Fatal(err)
	}
	for range 30 {
		same("joining")
		c.RunFor(100 * time.Millisecond)
	}
	if err := crash(c, 10, rng); err != nil {
		t.Fatal(err)
	}
	for range 30 {
		same("repairing")
		c.RunFor(100 * time.Millisecond)
	}
}
