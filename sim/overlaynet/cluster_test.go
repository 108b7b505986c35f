package overlaynet

import (
	"errors"
	"testing"
	"time"

	"github.com/peerlearn/peerlearn/sim/simnet"

	"github.com/peerlearn/peerlearn/protocol/overlay"
	"github.com/peerlearn/peerlearn/types/ident"
)

func TestClusterGrowFailRepair(t *testing.T) {
	c := newCluster(t, 1, 3, simnet.Uniform{Min: 20 * time.Millisecond, Max: 80 * time.Millisecond})
	nodes := ids(1, 40)
	grow(t, c, nodes, 8, 1)
	t.Logf("built 40 at %v, sent %v", c.Now(), c.Sent())
	for _, id := range nodes[:10] {
		if err := c.Crash(id); err != nil {
			t.Fatal(err)
		}
	}
	took, ok := c.RunUntilCorrect(60*time.Second, 100*time.Millisecond)
	if !ok {
		t.Fatalf("not correct after 10 crashes: %+v", c.Correctness())
	}
	t.Logf("10 crashes repaired in %v", took)
	noErrors(t, c)
}

// The cluster's endpoints are overlay transports.
var _ overlay.Transport = simnet.Endpoint[ident.Peer, []byte]{}

// TestClusterDeterministic: the same seed gives the same run, message for
// message; another seed gives another run.
func TestClusterDeterministic(t *testing.T) {
	run := func(seed uint64) (overlay.Counts, simnet.Counters, time.Duration) {
		c := newCluster(t, seed, 3, simnet.Uniform{Min: 10 * time.Millisecond, Max: 90 * time.Millisecond})
		nodes := ids(seed, 30)
		grow(t, c, nodes, 6, seed)
		for _, id := range nodes[:5] {
			c.Crash(id)
		}
		c.Leave(nodes[5])
		took, ok := c.RunUntilCorrect(time.Minute, 100*time.Millisecond)
		if !ok {
			t.Fatalf("seed %d: not correct: %+v", seed, c.Correctness())
		}
		return c.Sent(), c.Network().Total(), took
	}
	s1, n1, t1 := run(5)
	s2, n2, t2 := run(5)
	if s1 != s2 || n1 != n2 || t1 != t2 {
		t.Fatalf("same seed, different runs:\n%v %+v %v\n%v %+v %v", s1, n1, t1, s2, n2, t2)
	}
	if s3, _, _ := run(6); s3 == s1 {
		t.Fatal("another seed gave the very same run")
	}
}

func TestClusterRouteAndLeave(t *testing.T) {
	c := newCluster(t, 2, 2, simnet.Fixed(20*time.Millisecond))
	nodes := ids(2, 12)
	grow(t, c, nodes, 4, 2)
	var got []Delivered
	c.OnDeliver = func(d Delivered) { got = append(got, d) }
	if err := c.Route(nodes[0], 0, 0, nodes[7], []byte("sdp")); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Second)
	if len(got) != 1 || got[0].To != nodes[7] || string(got[0].Payload) != "sdp" || got[0].Origin != nodes[0] {
		t.Fatalf("deliveries %+v", got)
	}
	if err := c.Leave(nodes[3]); err != nil {
		t.Fatal(err)
	}
	c.RunFor(100 * time.Millisecond) // one link delay: the leave protocol alone
	if cr := c.Correctness(); !cr.OK() {
		t.Fatalf("after a leave: %+v", cr)
	}
	if err := c.Leave(nodes[3]); !errors.Is(err, simnet.ErrCrashed) {
		t.Errorf("leave twice: %v", err)
	}
	if err := c.Join(ident.Peer{1}, nodes[0]); !errors.Is(err, simnet.ErrUnknownNode) {
		t.Errorf("join of an unknown node: %v", err)
	}
	noErrors(t, c)
}
