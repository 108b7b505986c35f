package overlay_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/sim/overlaynet"
	"github.com/peerlearn/peerlearn/sim/simnet"
	"github.com/peerlearn/peerlearn/types/ident"
)

var long = flag.Bool("long", false, "run the property test over many more seeds")

// TestChurnConverges is the property test: from random overlays, random
// rounds of concurrent joins, graceful leaves and concurrent failures (up
// to 25% of the nodes at once, and all three mixed) always return the
// overlay to correct once churn stops, where correct is judged against
// the ring order computed outside the nodes from all live IDs. Some seeds
// also lose 2% of messages; others deliver out of order.
func TestChurnConverges(t *testing.T) {
	seeds := 30
	if *long {
		seeds = 300
	}
	if testing.Short() {
		seeds = 8
	}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { churnRun(t, seed) })
	}
}

func churnRun(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	cfg := overlaynet.DefaultClusterConfig()
	cfg.Seed = seed
	cfg.Overlay.Spaces = []int{2, 3, 5}[rng.IntN(3)]
	cfg.Net.Latency = simnet.Uniform{Min: 20 * time.Millisecond, Max: 150 * time.Millisecond}
	switch seed % 4 {
	case 2:
		cfg.Net.Loss = 0.02
	case 3: // messages overtake each other
		cfg.Net.FIFO = false
		cfg.Net.Latency = simnet.Exponential{MeanD: 100 * time.Millisecond, Min: 10 * time.Millisecond}
	}
	c, err := overlaynet.NewCluster(cfg)
	if err != nil {
		t.Fatal(err)
	}
	next := 0
	fresh := func(k int) []ident.Peer {
		ids := make([]ident.Peer, k)
		for i := range ids {
			ids[i] = ident.PeerFromPublicKey(fmt.Appendf(nil, "churn-%d-%d", seed, next))
			next++
		}
		return ids
	}
	if err := c.Grow(fresh(6+rng.IntN(40)), 1+rng.IntN(8), rng, time.Minute); err != nil {
		t.Fatal(err)
	}
	for round := range 6 {
		live := c.Live()
		n := len(live)
		var what string
		switch op := rng.IntN(4); {
		case op == 0 || n < 6: // concurrent joins
			k := 1 + rng.IntN(max(n/3, 1))
			what = fmt.Sprintf("%d joins", k)
			joinAll(t, c, fresh(k), live, rng)
		case op == 1: // graceful leaves
			k := 1 + rng.IntN(2)
			what = fmt.Sprintf("%d leaves", k)
			for _, i := range rng.Perm(n)[:k] {
				if err := c.Leave(live[i]); err != nil {
					t.Fatal(err)
				}
			}
		case op == 2: // 25% fail at once
			k := (n + 3) / 4
			what = fmt.Sprintf("%d failures", k)
			for _, i := range survivable(live, k, c.Spaces(), rng)[:k] {
				if err := c.Crash(live[i]); err != nil {
					t.Fatal(err)
				}
			}
		default: // all at once: joins, a leave and failures
			kf := 1 + rng.IntN(max(n/5, 1))
			perm := survivable(live, kf, c.Spaces(), rng)
			what = fmt.Sprintf("mixed: %d failures, 1 leave, joins", kf)
			for _, i := range perm[:kf] {
				if err := c.Crash(live[i]); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.Leave(live[perm[kf]]); err != nil {
				t.Fatal(err)
			}
			var rest []ident.Peer
			for _, i := range perm[kf+1:] {
				rest = append(rest, live[i])
			}
			joinAll(t, c, fresh(1+rng.IntN(4)), rest, rng)
		}
		took, ok := c.RunUntilCorrect(90*time.Second, 500*time.Millisecond)
		if !ok {
			dumpTables(t, c)
			t.Fatalf("L=%d round %d (%s) from %d nodes: not correct after %v: %+v",
				cfg.Overlay.Spaces, round, what, n, took, c.Correctness())
		}
		t.Logf("L=%d round %d: %s from %d nodes, correct after %v", cfg.Overlay.Spaces, round, what, n, took)
	}
	if k, errs := c.Errors(); k > 0 {
		t.Fatalf("%d node errors: %v", k, errs)
	}
}

// survivable returns a random permutation of 0..len(live)-1 whose first
// k nodes can fail without splitting the rest of the correct overlay into
// several groups of two or more nodes: no protocol can merge groups that
// know nothing of each other (a node left with no neighbour at all is
// fine: it joins again through a contact). It tries a few draws and
// returns the last.
func survivable(live []ident.Peer, k, spaces int, rng *rand.Rand) []int {
	want := overlay.ExpectedTables(live, spaces)
	var perm []int
	for range 50 {
		perm = rng.Perm(len(live))
		dead := map[ident.Peer]bool{}
		for _, i := range perm[:k] {
			dead[live[i]] = true
		}
		seen := map[ident.Peer]bool{}
		groups := 0
		for _, id := range live {
			if dead[id] || seen[id] {
				continue
			}
			size, stack := 0, []ident.Peer{id}
			seen[id] = true
			for len(stack) > 0 {
				u := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				size++
				for _, v := range want[u].Neighbors() {
					if !dead[v] && !seen[v] {
						seen[v] = true
						stack = append(stack, v)
					}
				}
			}
			if size > 1 {
				groups++
			}
		}
		if groups <= 1 {
			break
		}
	}
	return perm
}

// joinAll joins the nodes ids at once, each through a random one of via.
func joinAll(t *testing.T, c *overlaynet.Cluster, ids, via []ident.Peer, rng *rand.Rand) {
	t.Helper()
	for _, id := range ids {
		if _, err := c.AddNode(id); err != nil {
			t.Fatal(err)
		}
		if err := c.Join(id, via[rng.IntN(len(via))]); err != nil {
			t.Fatal(err)
		}
	}
}

// dumpTables logs every live node's table next to the correct one.
func dumpTables(t *testing.T, c *overlaynet.Cluster) {
	want := overlay.ExpectedTables(c.Live(), c.Spaces())
	for _, id := range c.Live() {
		t.Logf("%v has %v, want %v (joined %v)", id, c.Node(id).Table(), want[id], c.Node(id).Joined())
	}
}

// TestPartitionsMerge is the property test of merging: a random correct
// overlay, cut into two random groups (sizes at least 2) for longer than
// the failure timeout, becomes two overlays; once the network heals it
// always becomes one correct overlay again. Some seeds cut for minutes,
// some lose 2% of messages, some deliver out of order.
func TestPartitionsMerge(t *testing.T) {
	seeds := 12
	if *long {
		seeds = 100
	}
	if testing.Short() {
		seeds = 4
	}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { partitionRun(t, seed) })
	}
}

func partitionRun(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 17))
	cfg := overlaynet.DefaultClusterConfig()
	cfg.Seed = seed
	cfg.Overlay.Spaces = []int{2, 3, 5}[rng.IntN(3)]
	cfg.Net.Latency = simnet.Uniform{Min: 20 * time.Millisecond, Max: 150 * time.Millisecond}
	switch seed % 3 {
	case 1:
		cfg.Net.Loss = 0.02
	case 2:
		cfg.Net.FIFO = false
		cfg.Net.Latency = simnet.Exponential{MeanD: 100 * time.Millisecond, Min: 10 * time.Millisecond}
	}
	c, err := overlaynet.NewCluster(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]ident.Peer, 8+rng.IntN(60))
	for i := range ids {
		ids[i] = ident.PeerFromPublicKey(fmt.Appendf(nil, "part-%d-%d", seed, i))
	}
	if err := c.Grow(ids, 1+rng.IntN(8), rng, time.Minute); err != nil {
		t.Fatal(err)
	}
	live := c.Live()
	perm := rng.Perm(len(live))
	k := 2 + rng.IntN(len(live)-3)
	var a, b []ident.Peer
	for j, i := range perm {
		if j < k {
			a = append(a, live[i])
		} else {
			b = append(b, live[i])
		}
	}
	if err := c.Network().Partition(a, b); err != nil {
		t.Fatal(err)
	}
	cut := []time.Duration{5 * time.Second, 30 * time.Second, 3 * time.Minute}[rng.IntN(3)]
	c.RunFor(cut)
	if c.Correctness().OK() {
		t.Fatalf("still one correct overlay after a %v cut into %d + %d", cut, len(a), len(b))
	}
	c.Network().Heal()
	took, ok := c.RunUntilCorrect(2*time.Minute, 500*time.Millisecond)
	if !ok {
		dumpTables(t, c)
		t.Fatalf("L=%d, %d + %d nodes cut for %v: not merged %v after the heal: %+v",
			cfg.Overlay.Spaces, len(a), len(b), cut, took, c.Correctness())
	}
	t.Logf("L=%d, %d + %d nodes cut for %v: merged %v after the heal", cfg.Overlay.Spaces, len(a), len(b), cut, took)
	if n, errs := c.Errors(); n > 0 {
		t.Fatalf("%d node errors: %v", n, errs)
	}
}
