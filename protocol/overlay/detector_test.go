package overlay

import (
	"math"
	"testing"
)

func TestTimeoutIsWherePhiReachesTheThreshold(t *testing.T) {
	gaps := make([]int64, 200)
	for k := range gaps {
		gaps[k] = []int64{3, 5, 7, 5}[k%4] // mean 5, sd sqrt(2)
	}
	n, p := detectorNode(t, gaps)
	to := float64(n.failAfter(p))
	if phi := Phi(to, 5, math.Sqrt2); phi < n.cfg.PhiThreshold || Phi(to-1, 5, math.Sqrt2) >= n.cfg.PhiThreshold {
		t.Fatalf("timeout %v ticks: phi there %v, a tick before %v; want the first tick at threshold %v",
			to, phi, Phi(to-1, 5, math.Sqrt2), n.cfg.PhiThreshold)
	}
	if Phi(5, 10, 2) != 0 || Phi(12, 10, 2) >= Phi(15, 10, 2) {
		t.Error("suspicion is not zero before the mean and growing after it")
	}
}

// detectorNode returns a node whose neighbour x sent heartbeats at the
// given intervals (ticks).
func detectorNode(t *testing.T, gaps []int64) (*Node, *peer) {
	t.Helper()
	n, err := NewNode(testID('m'), testConfig(2, 1))
	if err != nil {
		t.Fatal(err)
	}
	n.consider(testID('x'), 0, Succ)
	p := n.find(testID('x'))
	n.heartbeatFrom(p)
	for _, g := range gaps {
		n.now += g
		n.heartbeatFrom(p)
		p.lastHeard = n.now // as Step does for every message
	}
	return n, p
}

func TestSteadyPathKeepsThePapersTimeout(t *testing.T) {
	gaps := make([]int64, 40)
	for k := range gaps {
		gaps[k] = int64(4 + k%3) // 4, 5, 6 ticks: a loopback path
	}
	n, p := detectorNode(t, gaps)
	if got := n.failAfter(p); got != int64(n.cfg.FailureTicks) {
		t.Fatalf("timeout %d ticks on a steady path, want the floor %d", got, n.cfg.FailureTicks)
	}
	if n.suspect(p) {
		t.Fatal("suspect right after a heartbeat")
	}
	n.now += int64(n.cfg.SuspectTicks)
	if !n.suspect(p) {
		t.Fatalf("not suspect after SuspectTicks on a steady path")
	}
}

func TestJitteryPathWaitsLongerButNotForever(t *testing.T) {
	gaps := make([]int64, 40)
	for k := range gaps {
		gaps[k] = []int64{1, 1, 2, 18}[k%4] // bursts after long stalls
	}
	n, p := detectorNode(t, gaps)
	got := n.failAfter(p)
	if got <= int64(n.cfg.FailureTicks) || got > int64(n.cfg.MaxFailureTicks) {
		t.Fatalf("timeout %d, want above the floor %d and at most %d", got, n.cfg.FailureTicks, n.cfg.MaxFailureTicks)
	}
	// A new neighbour of this node is judged by the pool: as slow.
	n.consider(testID('y'), 1, Succ)
	if y := n.find(testID('y')); n.failAfter(y) != got {
		t.Fatalf("new neighbour's timeout %d, want the pool's %d", n.failAfter(y), got)
	}
	wild := make([]int64, 40)
	for k := range wild {
		wild[k] = []int64{1, 300}[k%2]
	}
	n, p = detectorNode(t, wild)
	if got := n.failAfter(p); got != int64(n.cfg.MaxFailureTicks) {
		t.Fatalf("timeout %d on a wild path, want the cap %d", got, n.cfg.MaxFailureTicks)
	}
}

func TestFixedTimeoutWithoutPhi(t *testing.T) {
	n, err := NewNode(testID('m'), func() Config { c := testConfig(2, 1); c.PhiThreshold = 0; return c }())
	if err != nil {
		t.Fatal(err)
	}
	n.consider(testID('x'), 0, Succ)
	p := n.find(testID('x'))
	for range 40 {
		n.now += 19
		n.heartbeatFrom(p)
	}
	if got := n.failAfter(p); got != int64(n.cfg.FailureTicks) {
		t.Fatalf("timeout %d with PhiThreshold 0, want %d", got, n.cfg.FailureTicks)
	}
}
