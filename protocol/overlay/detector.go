package overlay

import (
	"math"

	"github.com/peerlearn/peerlearn/types/ident"
)

// Failure detection that adapts to the path (phi accrual, as in
// Hayashibara et al. and Cassandra/Akka). A fixed 3T timeout is right on
// a quiet path and wrong on one with a heavy latency tail: there a
// heartbeat held up behind a slow one (links are in order, like TCP)
// arrives after 1.5 s often enough that, over thousands of links, some
// live neighbour is always being declared dead and repaired.
//
// So each neighbour keeps a short window of the intervals between its
// heartbeats as they arrive here, in ticks, and the node keeps a longer
// one of all its neighbours' intervals (the pool). Their mean mu and
// standard deviation sigma are the neighbour's window shrunk towards the
// pool's, weighted by sample count: 32 heavy-tailed intervals alone say
// little about the tail, and a new neighbour (fewer than 8) is judged by
// the pool alone (a new link on a slow network is as slow as the old
// ones). The tail is modelled as exponential with scale sigma, as
// Cassandra does (a normal model, as in Akka, underestimates such a tail:
// with it, even at phi 16, 400 nodes at 350 ms mean exponential latency
// had a live neighbour wrongly failed at 30% of the samples of a
// minute; with this one, at 1 of 600 on the freshly built overlay and
// at none in the minute after 100 of them fail, seeds 1-5): after t ticks of silence the suspicion is
// phi(t) = -log10 P(interval > t) = ((t - mu) / sigma) * log10(e), and
// the neighbour is failed when phi reaches Config.PhiThreshold, i.e.
// after mu + PhiThreshold*ln(10)*sigma ticks; but never before
// FailureTicks (the floor: on a steady path sigma is under a tick and
// the detector behaves exactly like the paper's 3T) and always by
// MaxFailureTicks (the cap: a path that was wild once does not shelter a
// dead node for long). Sigma is floored at half a tick, the resolution
// of the clock.
//
// Routing's suspicion (SuspectTicks) is shifted by the same margin as the
// failure timeout, so on a steady path it is unchanged too.

// historyLen is the per-neighbour window of heartbeat intervals, poolLen
// the node-wide one, minHistory the samples a neighbour needs to be
// judged by its own window.
const (
	historyLen = 32
	poolLen    = 128
	minHistory = 8
)

// intervals is a fixed window of inter-arrival times with running sums
// (of integers, so exact in float64: no drift as values leave).
type intervals struct {
	buf        []uint16
	next, n    int
	sum, sumSq float64
}

func (w *intervals) add(d int64, size int) {
	if w.buf == nil {
		w.buf = make([]uint16, size)
	}
	v := uint16(min(d, math.MaxUint16))
	if w.n == len(w.buf) {
		old := float64(w.buf[w.next])
		w.sum -= old
		w.sumSq -= old * old
	} else {
		w.n++
	}
	w.buf[w.next] = v
	w.next = (w.next + 1) % len(w.buf)
	w.sum += float64(v)
	w.sumSq += float64(v) * float64(v)
}

// stats returns the mean and standard deviation of the window.
func (w *intervals) stats() (mu, sigma float64) {
	if w.n == 0 {
		return 0, 0
	}
	mu = w.sum / float64(w.n)
	return mu, math.Sqrt(max(0, w.sumSq/float64(w.n)-mu*mu))
}

// minSigma is the floor of the standard deviation, in ticks.
const minSigma = 0.5

// Phi returns the suspicion of a neighbour silent for t ticks whose
// heartbeat intervals have mean mu and standard deviation sigma (ticks),
// under the exponential tail model above.
func Phi(t, mu, sigma float64) float64 {
	return max(0, t-mu) / max(sigma, minSigma) * math.Log10E
}

// heartbeatFrom records the arrival of a heartbeat from neighbour p and
// updates its failure timeout.
func (n *Node) heartbeatFrom(p *peer) {
	if n.cfg.PhiThreshold <= 0 {
		return
	}
	if p.beaten {
		d := n.now - p.lastBeat
		p.beats.add(d, historyLen)
		n.pool.add(d, poolLen)
	}
	p.lastBeat, p.beaten = n.now, true
	p.timeout = n.timeoutFor(&p.beats)
}

// timeoutFor is the failure timeout for a neighbour with history w.
func (n *Node) timeoutFor(w *intervals) int64 {
	src := w
	if w.n < minHistory {
		src = &n.pool
	}
	floor := int64(n.cfg.FailureTicks)
	if src.n < minHistory {
		return floor
	}
	mu, sigma := src.stats()
	if src != &n.pool && n.pool.n >= minHistory {
		// Shrink towards the pool: a window of 32 heavy-tailed intervals
		// alone says little about the tail.
		pm, ps := n.pool.stats()
		a, b := float64(src.n), float64(n.pool.n)
		mu = (a*mu + b*pm) / (a + b)
		sigma = math.Sqrt((a*sigma*sigma + b*ps*ps) / (a + b))
	}
	t := int64(math.Ceil(mu + n.phiScale*max(sigma, minSigma)))
	return min(max(t, floor), int64(n.cfg.MaxFailureTicks))
}

// failAfter is the silence after which p is failed.
func (n *Node) failAfter(p *peer) int64 {
	if n.cfg.PhiThreshold <= 0 {
		return int64(n.cfg.FailureTicks)
	}
	if p.timeout == 0 {
		p.timeout = n.timeoutFor(&p.beats) // a new neighbour: the pool's view
	}
	return max(p.timeout, p.floor)
}

// FailureTimeout returns the silence, in ticks, after which the
// neighbour id would be declared failed now, or 0 if it is not a
// neighbour.
func (n *Node) FailureTimeout(id ident.Peer) int64 {
	if p := n.find(id); p != nil {
		return n.failAfter(p)
	}
	return 0
}
