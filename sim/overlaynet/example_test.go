package overlaynet_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/sim/overlaynet"
	"github.com/peerlearn/peerlearn/sim/simnet"
	"github.com/peerlearn/peerlearn/types/ident"
)

// A harness: build an overlay, inject churn, measure correctness over
// virtual time and messages per node.
func Example() {
	cfg := overlaynet.DefaultClusterConfig() // 100 ms ticks, L = 5
	cfg.Seed = 1
	cfg.Net.Latency = simnet.Uniform{Min: 250 * time.Millisecond, Max: 450 * time.Millisecond}
	c, err := overlaynet.NewCluster(cfg)
	if err != nil {
		panic(err)
	}
	ids := make([]ident.Peer, 100)
	for i := range ids {
		ids[i] = ident.PeerFromPublicKey(fmt.Appendf(nil, "peer-%d", i))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	// 20 concurrent joins at a time, each through a random member, waiting
	// for correctness in between.
	if err := c.Grow(ids, 20, rng, time.Minute); err != nil {
		panic(err)
	}
	fmt.Println("built:", len(c.Live()), "nodes, correct:", c.Correctness().OK())

	before := c.Sent()
	for _, id := range ids[:25] { // 25% fail at once
		c.Crash(id)
	}
	c.Leave(ids[25]) // and one leaves
	var trace []float64
	for start := c.Now(); c.Now()-start < time.Minute && !c.Correctness().OK(); {
		c.RunFor(250 * time.Millisecond)
		trace = append(trace, c.Correctness().Fraction()) // the paper's Fig. 8 metric
	}
	after := c.Sent()
	var repair uint64
	for _, t := range overlay.ConstructionTypes {
		repair += after[t] - before[t]
	}
	fmt.Println("repaired:", c.Correctness().OK(), "within 8 s:", time.Duration(len(trace))*250*time.Millisecond <= 8*time.Second)
	fmt.Println("repair messages per node under 100:", repair/uint64(len(c.Live())) < 100)
	n, _ := c.Errors()
	fmt.Println("errors:", n)
	// Output:
	// built: 100 nodes, correct: true
	// repaired: true within 8 s: true
	// repair messages per node under 100: true
	// errors: 0
}
