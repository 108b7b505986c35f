package learn

import (
	"testing"

	"github.com/peerlearn/peerlearn/protocol/mep"
)

// asyncDigest runs an asynchronous simulation and returns every peer's
// published model fingerprint and metrics.
func asyncDigest(t *testing.T, seed uint64, parallel bool) ([]mep.Fingerprint, []Metrics) {
	tk := newTask(t, 6, 60, 7)
	peers := newPeers(t, tk, func(i int, c *Config) {
		c.Seed = seed*100 + uint64(i)
		c.MEP.Period = []int{3, 4, 6}[i%3]
		c.LocalSteps, c.Batch = 3, 8
	})
	net := newAsyncNet(t, peers, ringPlus(6))
	net.parallel = parallel
	net.run(40)
	fps := make([]mep.Fingerprint, len(peers))
	ms := make([]Metrics, len(peers))
	for i, p := range peers {
		fps[i] = mep.FingerprintOf(p.Published(), nil)
		ms[i] = p.Metrics()
	}
	return fps, ms
}

// The same seed gives the same simulation, whether the works run one
// after the other or concurrently in another order; another seed does not.
func TestSameSeedSameSimulation(t *testing.T) {
	fa, ma := asyncDigest(t, 1, false)
	fb, mb := asyncDigest(t, 1, true)
	for i := range fa {
		if fa[i] != fb[i] || ma[i] != mb[i] {
			t.Fatalf("peer %d: %v %+v sequential, %v %+v concurrent", i, fa[i], ma[i], fb[i], mb[i])
		}
	}
	fc, _ := asyncDigest(t, 2, true)
	same := 0
	for i := range fa {
		if fa[i] == fc[i] {
			same++
		}
	}
	if same != 0 {
		t.Fatalf("%d of %d peers end with the same model under another seed", same, len(fa))
	}
}

// Synchronous rounds too.
func TestSyncDeterministic(t *testing.T) {
	run := func(parallel bool) []mep.Fingerprint {
		tk := newTask(t, 5, 48, 8)
		peers := newPeers(t, tk, func(_ int, c *Config) { c.Aggregator = "dechw"; c.LocalSteps = 2 })
		syncRounds(t, peers, ringPlus(5), 4, parallel)
		out := make([]mep.Fingerprint, len(peers))
		for i, p := range peers {
			c, _ := p.Contribution()
			out[i] = mep.FingerprintOf(c.Params, c.Hessian)
		}
		return out
	}
	a, b := run(false), run(true)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("peer %d differs: %v vs %v", i, a[i], b[i])
		}
	}
}
