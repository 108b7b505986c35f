package overlaynet

import (
	"flag"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/sim/simnet"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
)

var (
	long    = flag.Bool("long", false, "run the long tests (paper-scale sanity runs)")
	verbose = flag.Bool("trace", false, "log correctness over time in the long tests")
)

// paperLatency is the Fig. 8 setting: mean one-way latency 350 ms.
var paperLatency = simnet.Uniform{Min: 250 * time.Millisecond, Max: 450 * time.Millisecond}

func build(t *testing.T, seed uint64, n int) (*Cluster, []ident.Peer) {
	c := newCluster(t, seed, 5, paperLatency)
	nodes := ids(seed, n)
	grow(t, c, nodes, 50, seed)
	return c, nodes
}

// TestFig8Joins: 100 concurrent joins into a correct 400-node overlay
// (paper: correct again within ~8 s).
func TestFig8Joins(t *testing.T) {
	if !*long {
		t.Skip("needs -long")
	}
	for seed := uint64(1); seed <= 3; seed++ {
		c, _ := build(t, seed, 400)
		newcomers := ids(1000+seed, 100)
		live := c.Live()
		rng := rand.New(rand.NewPCG(seed, 8))
		for _, id := range newcomers {
			c.AddNode(id)
			c.Join(id, live[rng.IntN(len(live))])
		}
		trace(t, c, 8*time.Second) // the paper: correct again within ~8 s
	}
}

// TestFig8Failures: 100 concurrent crashes in a correct 400-node overlay.
func TestFig8Failures(t *testing.T) {
	if !*long {
		t.Skip("needs -long")
	}
	for seed := uint64(1); seed <= 3; seed++ {
		c, nodes := build(t, seed, 400)
		perm := rand.New(rand.NewPCG(seed, 9)).Perm(len(nodes))
		for _, k := range perm[:100] {
			c.Crash(nodes[k])
		}
		trace(t, c, 8*time.Second) // the paper: correct again within ~8 s
	}
}

func trace(t *testing.T, c *Cluster, limit time.Duration) {
	start := c.Now()
	sent0 := c.Sent()
	for c.Now()-start <= limit {
		cr := c.Correctness()
		if *verbose {
			t.Logf("t=%5.1fs correctness=%.4f wrongSlots=%d", (c.Now() - start).Seconds(), cr.Fraction(), cr.WrongSlots)
		}
		if cr.OK() {
			s := c.Sent()
			var d overlay.Counts
			for k := range s {
				d[k] = s[k] - sent0[k]
			}
			t.Logf("correct after %v; messages meanwhile: %v", c.Now()-start, d)
			noErrors(t, c)
			return
		}
		c.RunFor(250 * time.Millisecond)
	}
	t.Fatalf("not correct after %v: %+v", limit, c.Correctness())
}

// TestFig8Build: messages per node to build 500 nodes by single joins.
func TestFig8Build(t *testing.T) {
	if !*long {
		t.Skip("needs -long")
	}
	c := newCluster(t, 10, 5, paperLatency)
	nodes := ids(10, 500)
	rng := rand.New(rand.NewPCG(10, 10))
	c.AddNode(nodes[0])
	for _, id := range nodes[1:] {
		live := c.Live()
		c.AddNode(id)
		c.Join(id, live[rng.IntN(len(live))])
		c.RunFor(3 * time.Second)
	}
	if _, ok := c.RunUntilCorrect(30*time.Second, time.Second); !ok {
		t.Fatalf("not correct: %+v", c.Correctness())
	}
	s := c.Sent()
	n := float64(len(nodes))
	joinPath := float64(s.Total(overlay.MsgJoin, overlay.MsgDiscover, overlay.MsgDiscoverReply, overlay.MsgLink, overlay.MsgHint)) / n
	if joinPath > 30 {
		t.Errorf("%.1f join messages per node, the paper has about 30", joinPath)
	}
	t.Logf("virtual %v; per node: construction %.1f (join-path %.1f), heartbeats %.1f; %v",
		c.Now(), float64(s.Total(overlay.ConstructionTypes...))/n,
		float64(s.Total(overlay.MsgJoin, overlay.MsgDiscover, overlay.MsgDiscoverReply, overlay.MsgLink, overlay.MsgHint))/n,
		float64(s[overlay.MsgHeartbeat])/n, s)
	noErrors(t, c)
}
