package overlaysim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/peerlearn/peerlearn/protocol/overlay"
)

// Build is one Fig. 8c point: an overlay of N nodes grown by sequential
// joins from one node.
type Build struct {
	N int
	overlay.Correctness
	// Sent counts the messages all nodes sent, by type.
	Sent overlay.Counts
	// Virtual is the virtual time the build took.
	Virtual time.Duration
}

// MsgsPerNode is the NDMP construction messages (overlay.ConstructionTypes:
// everything but heartbeats and Route) sent per node.
func (b Build) MsgsPerNode() float64 {
	return float64(b.Sent.Total(overlay.ConstructionTypes...)) / float64(b.N)
}

// HeartbeatsPerNode is the heartbeats sent per node during the build.
func (b Build) HeartbeatsPerNode() float64 {
	return float64(b.Sent[overlay.MsgHeartbeat]) / float64(b.N)
}

// BuildOverlay grows an overlay of n nodes by sequential joins: the
// first node founds it, then each new node joins through a live member
// drawn at random (the paper's "arbitrary node") once the overlay is
// correct again after the previous join. The periodic repair is off (see
// the package documentation).
func BuildOverlay(ctx context.Context, p Params, n int) (Build, error) {
	bs, err := Sweep(ctx, p, []int{n})
	if err != nil {
		return Build{}, err
	}
	return bs[0], nil
}

// Sweep measures BuildOverlay for each size in ns (Fig. 8c). It grows one
// overlay to the largest size and takes each measure when the overlay
// reaches that size: the simulation is deterministic and the first k
// joins of a larger build are those of a build of k nodes, so each
// measure is exactly what BuildOverlay(k) returns, for the cost of one
// build. The builds come back in the order of ns.
func Sweep(ctx context.Context, p Params, ns []int) ([]Build, error) {
	if len(ns) == 0 || slices.Min(ns) < 2 {
		return nil, fmt.Errorf("%w: build sizes %v, want each >= 2", ErrInvalid, ns)
	}
	top := slices.Max(ns)
	c, err := p.newCluster(false)
	if err != nil {
		return nil, err
	}
	// Each join costs about the size of the overlay in simulated
	// heartbeats: the bar counts joins weighted by size, so its ETA holds.
	bar := p.bar(fmt.Sprintf("build %d nodes one at a time (joins × size)", top), top*(top-1)/2)
	defer bar.Finish()
	at := map[int]Build{}
	g := grower{
		c: c, rng: rand.New(rand.NewPCG(p.Seed, 0x8c)),
		batch: func(int) int { return 1 },
		work:  func(live, k int) int64 { return int64(live * k) },
		every: p.Every, limit: p.Limit, bar: bar,
	}
	g.afterBatch = func() error {
		if n := len(c.Live()); slices.Contains(ns, n) {
			at[n] = Build{N: n, Correctness: g.k.check(), Sent: c.Sent(), Virtual: c.Now()}
		}
		return nil
	}
	if err := g.grow(ctx, p.ids("build", top)); err != nil {
		return nil, err
	}
	if err := clusterErrors(c); err != nil {
		return nil, err
	}
	out := make([]Build, len(ns))
	for i, n := range ns {
		out[i] = at[n]
	}
	return out, nil
}
