package overlaysim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/peerlearn/peerlearn/internal/progress"
	"github.com/peerlearn/peerlearn/overlay"
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
	bar := p.bar(fmt.Sprintf("build %d nodes one at a time", n), n)
	defer bar.Finish()
	return buildOne(ctx, p, n, bar)
}

// Sweep runs BuildOverlay for each size in ns (Fig. 8c), each from
// scratch with the same seed, on up to GOMAXPROCS goroutines (each build
// is one deterministic simulation, so the results do not depend on
// scheduling). The builds come back in the order of ns.
func Sweep(ctx context.Context, p Params, ns []int) ([]Build, error) {
	total := 0
	for _, n := range ns {
		total += n
	}
	bar := p.bar(fmt.Sprintf("build %d overlays one join at a time", len(ns)), total)
	defer bar.Finish()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Largest first: the last to finish is then a small one.
	order := make([]int, len(ns))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ns[b], ns[a]) })
	out := make([]Build, len(ns))
	errs := make([]error, len(ns))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(ns)) {
		wg.Go(func() {
			for i := range next {
				if out[i], errs[i] = buildOne(ctx, p, ns[i], bar); errs[i] != nil {
					cancel()
				}
			}
		})
	}
	for _, i := range order {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, fmt.Errorf("n=%d: %w", ns[i], err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func buildOne(ctx context.Context, p Params, n int, bar *progress.Bar) (Build, error) {
	if n < 2 {
		return Build{}, fmt.Errorf("%w: build of %d nodes, want >= 2", ErrInvalid, n)
	}
	c, err := p.newCluster(false)
	if err != nil {
		return Build{}, err
	}
	g := grower{
		c: c, rng: rand.New(rand.NewPCG(p.Seed, 0x8c)),
		batch: func(int) int { return 1 },
		every: p.Every, limit: p.Limit, bar: bar,
	}
	if err := g.grow(ctx, p.ids("build", n)); err != nil {
		return Build{}, err
	}
	if err := clusterErrors(c); err != nil {
		return Build{}, err
	}
	return Build{N: n, Correctness: c.Correctness(), Sent: c.Sent(), Virtual: c.Now()}, nil
}
