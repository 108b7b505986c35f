package learn

import "testing"

// Config.Yield is called between the batches of a local round (a browser
// peer lets its event loop run there): once per batch after the first.
func TestYieldBetweenBatches(t *testing.T) {
	tk := newTask(t, 2, 120, 3)
	var calls int
	peers := newPeers(t, tk, func(_ int, c *Config) {
		c.Aggregator = "decavg"
		c.LocalSteps, c.LocalEpochs = 6, 0
		c.Yield = func() { calls++ }
	})
	syncRounds(t, peers[:1], make([][]int, 1), 2, false)
	// 2 rounds of 6 steps: 5 yields each (none before a round's first batch).
	if calls != 2*5 {
		t.Fatalf("Yield called %d times in 2 rounds of 6 steps, want 10", calls)
	}
}
