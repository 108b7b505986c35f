package simnet

import (
	"testing"
	"time"
)

func TestClusterGrowFailRepair(t *testing.T) {
	c := newCluster(t, 1, 3, Uniform{20 * time.Millisecond, 80 * time.Millisecond})
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
