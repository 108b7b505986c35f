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
// heartbeats as they arrive here, in ticks. From their mean mu and
// standard deviation sigma (normal model) the suspicion after t ticks of
// silence is phi(t) = -log10 P(interval > t); the neighbour is failed when
// phi reaches Config.PhiThreshold, i.e. after mu + z*sigma ticks, but never
// before FailureTicks (the floor: on a steady path sigma is tiny and the
// detector behaves exactly like the paper's 3T) and always after
// MaxFailureTicks (the cap: a path that was wild once does not shelter a
// dead node for long). A neighbour with too short a history is judged by
// the intervals this node has seen from all its neighbours (the pool):
// a new link on a slow network is as slow as the old ones.
//
// Routing's suspicion (SuspectTicks) is shifted by the same margin as the
// failure timeout, so on a steady path it is unchanged too.

// historyLen is the per-neighbour window of heartbeat intervals, poolLen
// the node-wide one, minHistory the samples a neighbour needs to be
// judged by its own window.
const (
	historyLen = 32
	poolLen    = 64
	minHistory = 8
)

// intervals is a fixed window of inter-arrival times with running sums.
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

// phiZ returns z such that -log10 P(X > mu + z*sigma) = phi for a normal
// X: the failure timeout's distance from the mean in standard deviations.
func phiZ(phi float64) float64 {
	lo, hi := 0.0, 40.0
	for range 100 {
		z := (lo + hi) / 2
		if -math.Log10(0.5*math.Erfc(z/math.Sqrt2)) < phi {
			lo = z
		} else {
			hi = z
		}
	}
	return hi
}

// Phi returns the suspicion of a neighbour silent for t ticks whose
// heartbeat intervals have mean mu and standard deviation sigma (in
// ticks; sigma is floored at one tick, the resolution of the clock).
func Phi(t, mu, sigma float64) float64 {
	sigma = max(sigma, 1)
	p := 0.5 * math.Erfc((t-mu)/(sigma*math.Sqrt2))
	if p <= 0 {
		return math.Inf(1)
	}
	return -math.Log10(p)
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
	t := int64(math.Ceil(mu + n.phiZ*max(sigma, 1)))
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
	return p.timeout
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
