package overlaysim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/peerlearn/peerlearn/sim/overlaynet"
)

// Churn is one Fig. 8a or 8b run: k nodes join (Joins) or crash (Fails)
// at once in a correct overlay of N nodes.
type Churn struct {
	N, Joins, Fails int
	// BuildVirtual is the virtual time the base overlay took to build.
	BuildVirtual time.Duration
	Trace
}

// Event names the churn for reports: "join=100" or "fail=100".
func (c Churn) Event() string {
	if c.Joins > 0 {
		return fmt.Sprintf("join=%d", c.Joins)
	}
	return fmt.Sprintf("fail=%d", c.Fails)
}

// Joins builds a correct overlay of n nodes, then makes k new nodes join
// at once, each through a live member drawn at random, and traces the
// correctness until the overlay is correct again (Fig. 8a).
func Joins(ctx context.Context, p Params, n, k int) (Churn, error) {
	if n < 1 || k < 1 {
		return Churn{}, fmt.Errorf("%w: %d joins into %d nodes", ErrInvalid, k, n)
	}
	c, built, err := base(ctx, p, n)
	if err != nil {
		return Churn{}, err
	}
	rng := rand.New(rand.NewPCG(p.Seed, 0x8a))
	if err := joinAll(c, p.ids("joiners", k), c.Live(), rng); err != nil {
		return Churn{}, err
	}
	return finish(ctx, p, c, Churn{N: n, Joins: k, BuildVirtual: built})
}

// Failures builds a correct overlay of n nodes, then crashes k of them
// drawn at random, at once and without goodbye, and traces the
// correctness of the survivors until it is correct again (Fig. 8b).
func Failures(ctx context.Context, p Params, n, k int) (Churn, error) {
	if k < 1 || k >= n {
		return Churn{}, fmt.Errorf("%w: %d failures of %d nodes, want 1..n-1", ErrInvalid, k, n)
	}
	c, built, err := base(ctx, p, n)
	if err != nil {
		return Churn{}, err
	}
	if err := crash(c, k, rand.New(rand.NewPCG(p.Seed, 0x8b))); err != nil {
		return Churn{}, err
	}
	return finish(ctx, p, c, Churn{N: n, Fails: k, BuildVirtual: built})
}

// crash fails k live nodes of c drawn with rng.
func crash(c *overlaynet.Cluster, k int, rng *rand.Rand) error {
	live := c.Live()
	for _, i := range rng.Perm(len(live))[:k] {
		if err := c.Crash(live[i]); err != nil {
			return err
		}
	}
	return nil
}

// base builds a correct n-node overlay with the default NDMP
// configuration: batches of concurrent joins, doubling up to 50.
func base(ctx context.Context, p Params, n int) (*overlaynet.Cluster, time.Duration, error) {
	c, err := p.newCluster(true)
	if err != nil {
		return nil, 0, err
	}
	bar := p.bar(fmt.Sprintf("build %d nodes (joins)", n), n-1)
	g := grower{
		c: c, rng: rand.New(rand.NewPCG(p.Seed, 0xba5e)),
		batch: func(live int) int { return min(live, 50) },
		every: p.Every, limit: p.Limit, bar: bar,
	}
	err = g.grow(ctx, p.ids("base", n))
	bar.Finish()
	if err == nil {
		err = clusterErrors(c)
	}
	return c, c.Now(), err
}

// finish traces the recovery from the event just injected.
func finish(ctx context.Context, p Params, c *overlaynet.Cluster, r Churn) (Churn, error) {
	r.Trace = recovery(ctx, p, newChecker(c), r.Event())
	if err := ctx.Err(); err != nil {
		return r, err
	}
	return r, clusterErrors(c)
}

// clusterErrors reports messages the nodes rejected: a correct run has none.
func clusterErrors(c *overlaynet.Cluster) error {
	if n, errs := c.Errors(); n > 0 {
		return fmt.Errorf("%d node errors, first: %v", n, errs[0])
	}
	return nil
}
